/**
 * Per-model figures over the results: pass rate with its 95% Wilson interval (over graded runs only:
 * an error is no verdict), per tag, tokens and their cost, latency and steps. Pure.
 */
import { costNanoUsd, NANO_USD_PER_USD, priceOf, type PriceTable } from '../state/usage/model-prices.js';
import type { CaseResult } from './run-case.js';

/** Pass, fail and error counts, and the rate over pass + fail (null when nothing was graded). */
export interface Tally {
  passed: number;
  failed: number;
  errors: number;
  total: number;
  rate: number | null;
}

export interface ModelSummary extends Tally {
  model: string;
  /** 95% Wilson score interval of the rate; null when nothing was graded. */
  interval: [number, number] | null;
  tags: Record<string, Tally>;
  tokens: { prompt: number; completion: number; total: number };
  /** Estimated from the model price settings; `priced` false: the model has no price (counted as 0). */
  cost: { usd: number; priced: boolean };
  /** Over graded runs (an error's time says nothing of the model). */
  latency_ms: { p50: number; p95: number };
  steps: { mean: number; p50: number; p95: number };
}

/** The Wilson score interval of `passed` out of `n` (z = 1.96 for 95%). */
export function wilson(passed: number, n: number, z = 1.96): [number, number] | null {
  if (n === 0) return null;
  const p = passed / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** The nearest-rank percentile (0 for no values). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function tally(results: readonly CaseResult[]): Tally {
  const count = (status: CaseResult['status']) => results.filter((r) => r.status === status).length;
  const passed = count('pass');
  const failed = count('fail');
  return { passed, failed, errors: count('error'), total: results.length, rate: passed + failed ? passed / (passed + failed) : null };
}

/** The figures of one model's results. */
export function summarize(model: string, results: readonly CaseResult[], prices: PriceTable): ModelSummary {
  const mine = results.filter((r) => r.model === model);
  const counts = tally(mine);
  const tagNames = [...new Set(mine.flatMap((r) => r.case.tags ?? []))].sort();
  const graded = mine.filter((r) => r.status !== 'error');
  const steps = graded.map((r) => r.steps);
  const sum = (pick: (r: CaseResult) => number) => mine.reduce((n, r) => n + pick(r), 0);
  const nano = sum((r) => costNanoUsd(r.usage, model, prices));
  return {
    model,
    ...counts,
    interval: wilson(counts.passed, counts.passed + counts.failed),
    tags: Object.fromEntries(tagNames.map((tag) => [tag, tally(mine.filter((r) => r.case.tags?.includes(tag)))])),
    tokens: { prompt: sum((r) => r.usage.promptTokens), completion: sum((r) => r.usage.completionTokens), total: sum((r) => r.usage.totalTokens) },
    cost: { usd: nano / NANO_USD_PER_USD, priced: priceOf(model, prices) !== undefined },
    latency_ms: { p50: Math.round(percentile(graded.map((r) => r.latencyMs), 50)), p95: Math.round(percentile(graded.map((r) => r.latencyMs), 95)) },
    steps: { mean: steps.length ? Number((steps.reduce((a, b) => a + b, 0) / steps.length).toFixed(2)) : 0, p50: percentile(steps, 50), p95: percentile(steps, 95) },
  };
}
