/**
 * How many tokens the model's context window holds, so the engine can trim a request to fit before
 * sending it. In order: MODEL_CONTEXT_TOKENS when set (the operator knows best), what the server
 * reports for the loaded model, a built-in table for OpenAI's models, else unknown.
 */
import { discoverContextTokens } from './context-discovery.js';

export { discoverContextTokens } from './context-discovery.js';

// Context windows from OpenAI's model pages. Dated snapshots (`gpt-4o-2024-08-06`) take their
// family's value; the longest matching name wins (`gpt-4o-mini` before `gpt-4o`).
const OPENAI_CONTEXT: ReadonlyArray<readonly [string, number]> = [
  ['gpt-5', 400_000],
  ['gpt-5-mini', 400_000],
  ['gpt-5-nano', 400_000],
  ['gpt-5-chat', 128_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4.1-mini', 1_047_576],
  ['gpt-4.1-nano', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4o-mini', 128_000],
  ['chatgpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4-turbo-preview', 128_000],
  ['gpt-4-0125-preview', 128_000],
  ['gpt-4-1106-preview', 128_000],
  ['gpt-4-32k', 32_768],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o1-mini', 128_000],
  ['o1-preview', 128_000],
  ['o3', 200_000],
  ['o3-mini', 200_000],
  ['o4-mini', 200_000],
];

/** The built-in context window for an OpenAI model name, if it is one we know. */
export function builtinContextTokens(model: string): number | undefined {
  // Fine-tunes (`ft:gpt-4o-mini-2024-07-18:org::id`) and gateway names (`openai/gpt-4o`) share their base's window.
  const name = model.trim().toLowerCase().replace(/^ft:/, '').split(':')[0]!.replace(/^openai\//, '');
  let best: readonly [string, number] | undefined;
  for (const entry of OPENAI_CONTEXT) {
    const [family] = entry;
    if ((name === family || name.startsWith(`${family}-`)) && (!best || family.length > best[0].length)) best = entry;
  }
  return best?.[1];
}

export interface ContextLookup {
  model: string;
  /** OPENAI_BASE_URL; unset means OpenAI itself, which reports no window (the table answers). */
  baseURL?: string;
  apiKey?: string;
  /** MODEL_CONTEXT_TOKENS. */
  configured?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per probe request. Default 3000 ms. */
  timeoutMs?: number;
}

export interface ContextWindow {
  tokens: number;
  /** Where the number came from, for the log line that reports it. */
  source: 'MODEL_CONTEXT_TOKENS' | 'server' | 'built-in table';
}

/**
 * The model's context window, or undefined when nothing says (the engine then trims to its own
 * budget only). Never throws: a server that cannot be asked is simply not asked again.
 */
export async function contextTokensFor(lookup: ContextLookup): Promise<ContextWindow | undefined> {
  if (lookup.configured && lookup.configured > 0) return { tokens: lookup.configured, source: 'MODEL_CONTEXT_TOKENS' };
  if (lookup.baseURL && !isOpenAI(lookup.baseURL)) {
    const reported = await discoverContextTokens(lookup.baseURL, lookup.model, lookup);
    if (reported) return { tokens: reported, source: 'server' };
  }
  const known = builtinContextTokens(lookup.model);
  return known ? { tokens: known, source: 'built-in table' } : undefined;
}

function isOpenAI(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
