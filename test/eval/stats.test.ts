/** The runner's figures and schedule: the Wilson interval, percentiles, interleaving and the pool. */
import { describe, expect, it } from 'vitest';
import { interleave, runPool } from '../../src/eval/schedule.js';
import { percentile, wilson } from '../../src/eval/stats.js';

describe('figures', () => {
  it('gives the Wilson 95% interval (published values) and none for no graded run', () => {
    const [lo, hi] = wilson(9, 10)!;
    expect(lo).toBeCloseTo(0.5958, 3);
    expect(hi).toBeCloseTo(0.9821, 3);
    // All passed: the interval still has room below 1, which a normal approximation would not.
    const [allLo, allHi] = wilson(10, 10)!;
    expect(allLo).toBeCloseTo(0.7225, 3);
    expect(allHi).toBe(1);
    expect(wilson(0, 0)).toBeNull();
  });

  it('takes nearest-rank percentiles', () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('schedule', () => {
  it('runs each case on every model back to back, the first model alternating, repeat after repeat', () => {
    const jobs = interleave(3, ['a', 'b'], 2).map((j) => `${j.repeat}:${j.caseIndex}${j.model}`);
    expect(jobs).toEqual(['0:0a', '0:0b', '0:1b', '0:1a', '0:2a', '0:2b', '1:0b', '1:0a', '1:1a', '1:1b', '1:2b', '1:2a']);
  });

  it('runs at most `concurrency` at once, starting them in order, results in order', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const results = await runPool([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      most = Math.max(most, ++running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return n * 10;
    });
    expect(most).toBe(3);
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(results).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });
});
