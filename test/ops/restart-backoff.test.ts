import { describe, expect, it } from 'vitest';
import { RestartBackoff } from '../../src/ops/restart-backoff.js';

describe('restart backoff for a shard process that ends', () => {
  it('waits longer after each quick death, up to the cap, per shard', () => {
    const backoff = new RestartBackoff({ firstMs: 1_000, maxMs: 8_000, stableMs: 60_000 });
    expect([1, 2, 3, 4, 5].map(() => backoff.next(0, 500))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
    // Another shard has its own count.
    expect(backoff.next(1, 500)).toBe(1_000);
  });

  it('starts over once the shard had stayed up long enough', () => {
    const backoff = new RestartBackoff({ firstMs: 1_000, maxMs: 8_000, stableMs: 60_000 });
    backoff.next(0, 500);
    backoff.next(0, 500);
    expect(backoff.next(0, 61_000)).toBe(1_000);
    expect(backoff.next(0, 100)).toBe(2_000);
  });
});
