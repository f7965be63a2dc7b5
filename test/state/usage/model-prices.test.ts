import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES, costNanoUsd, formatUsd, parseModelPrices, priceOf, priceTable } from '../../../src/state/usage/model-prices.js';

describe('model prices', () => {
  it('finds dated and suffixed versions of a listed model, preferring the longest match', () => {
    const table = priceTable();
    expect(priceOf('gpt-4o-mini', table)).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf('gpt-4o-mini-2024-07-18', table)).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf('gpt-4o-2024-08-06', table)).toEqual({ input: 2.5, output: 10 });
    expect(priceOf('o3-mini-2025-01-31', table)).toEqual({ input: 1.1, output: 4.4 });
    expect(priceOf('GPT-4.1-nano', table)).toEqual({ input: 0.1, output: 0.4 });
  });

  it('prices unknown and local models at 0', () => {
    const table = priceTable();
    for (const model of ['llama3.1:8b', 'qwen2.5-coder', 'gpt-4ox', 'my-gpt-4o']) {
      expect(priceOf(model, table)).toBeUndefined();
      expect(costNanoUsd({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, model, table)).toBe(0);
    }
  });

  it('computes cost in billionths of a dollar from input and output prices', () => {
    const table = priceTable();
    // 1M in × $0.15 + 1M out × $0.60 = $0.75
    expect(costNanoUsd({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, 'gpt-4o-mini', table)).toBe(750_000_000);
    expect(costNanoUsd({ promptTokens: 1, completionTokens: 0 }, 'gpt-4o-mini', table)).toBe(150);
    // Every built-in price makes one token a whole number of nano-dollars, so counters add exactly.
    for (const price of Object.values(BUILT_IN_PRICES)) {
      expect(Number.isInteger(Math.round(price.input * 1_000 * 1e6) / 1e6)).toBe(true);
      expect(Number.isInteger(Math.round(price.output * 1_000 * 1e6) / 1e6)).toBe(true);
    }
  });

  it('lets MODEL_PRICES add models and override built-in ones', () => {
    const parsed = parseModelPrices('{"Local-Llama": {"input": 0, "output": 0}, "gpt-4o": {"input": 1, "output": 2}}');
    expect(parsed).toEqual({ prices: { 'local-llama': { input: 0, output: 0 }, 'gpt-4o': { input: 1, output: 2 } } });
    const table = priceTable('prices' in parsed ? parsed.prices : {});
    expect(priceOf('gpt-4o', table)).toEqual({ input: 1, output: 2 });
    expect(priceOf('gpt-4o-mini', table)).toEqual({ input: 0.15, output: 0.6 });
  });

  it.each([
    ['not JSON', '{gpt-4o: 1}', /not valid JSON/],
    ['an array', '[1, 2]', /must be a JSON object/],
    ['a missing output price', '{"m": {"input": 1}}', /m must each have/],
    ['a negative price', '{"m": {"input": -1, "output": 1}}', /m must each have/],
    ['a price as text', '{"m": {"input": "1", "output": 1}}', /m must each have/],
  ])('reports %s as a configuration problem', (_label, json, problem) => {
    const parsed = parseModelPrices(json);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });

  it('formats dollars readably', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(750_000_000)).toBe('$0.75');
    expect(formatUsd(12_345_000_000)).toBe('$12.35');
    expect(formatUsd(270_000)).toBe('$0.00027');
    expect(formatUsd(150)).toBe('< $0.0001');
  });
});
