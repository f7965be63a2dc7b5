/**
 * What a model call is estimated to cost: a price table in US dollars per million input and output
 * tokens, built in for common OpenAI models and overridable with MODEL_PRICES. Unknown and local models
 * cost 0 (their owner pays in hardware, not per token). Pure functions.
 */

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Model name → price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * OpenAI list prices (standard tier, uncached input) at the time of writing. Prices change: a deployment
 * that cares sets MODEL_PRICES, which wins over these.
 */
export const BUILT_IN_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  o1: { input: 15, output: 60 },
  'o1-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

/** The built-in table with `overrides` on top. */
export function priceTable(overrides: PriceTable = {}): PriceTable {
  return { ...BUILT_IN_PRICES, ...overrides };
}

/**
 * The price of `model`: an exact entry, else the longest entry it is a dated or suffixed version of
 * (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`, never `gpt-4o`), else undefined (cost 0).
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  const name = model.trim().toLowerCase();
  const exact = table[name] ?? table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (name.startsWith(`${key.toLowerCase()}-`) && key.length > (best?.length ?? 0)) best = key;
  }
  return best ? table[best] : undefined;
}

/** Billionths of a dollar: integers, so counters add exactly; one token of any listed model is a whole number. */
export const NANO_USD_PER_USD = 1_000_000_000;

/** Estimated cost of one call, in billionths of a dollar (rounded), 0 for an unknown model. */
export function costNanoUsd(usage: { promptTokens: number; completionTokens: number }, model: string, table: PriceTable): number {
  const price = priceOf(model, table);
  if (!price) return 0;
  // $ per 1M tokens × 1,000 = nano-dollars per token.
  return Math.round(usage.promptTokens * price.input * 1_000 + usage.completionTokens * price.output * 1_000);
}

/**
 * Parse MODEL_PRICES (`{"model": {"input": 0.15, "output": 0.6}}`). Returns the table, or a problem
 * sentence for the start-up report; never throws.
 */
export function parseModelPrices(json: string): { prices: PriceTable } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return { problem: `MODEL_PRICES is not valid JSON (${(error as Error).message}). Example: {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'MODEL_PRICES must be a JSON object of model name → {"input": dollars, "output": dollars} per million tokens.' };
  }
  const prices: Record<string, ModelPrice> = {};
  const bad: string[] = [];
  for (const [model, value] of Object.entries(parsed)) {
    const { input, output } = (value ?? {}) as Record<string, unknown>;
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (!model.trim() || !ok(input) || !ok(output)) bad.push(model || '""');
    else prices[model.trim().toLowerCase()] = { input, output };
  }
  if (bad.length > 0) {
    return { problem: `MODEL_PRICES: ${bad.join(', ')} must each have "input" and "output" as non-negative numbers (dollars per million tokens).` };
  }
  return { prices };
}

/** Dollars for display: cents for sums of a cent or more, else enough digits to show it is not zero. */
export function formatUsd(nanoUsd: number): string {
  const usd = nanoUsd / NANO_USD_PER_USD;
  if (usd === 0) return '$0';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  if (usd < 0.0001) return '< $0.0001';
  return `$${usd.toPrecision(2)}`;
}
