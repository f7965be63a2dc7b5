import { afterEach, describe, expect, it } from 'vitest';
import { openIdentifyLock, sharedIdentifyThrottler, type IdentifyLock } from '../../src/state/identify-lock.js';
import { POSTGRES_URL, REDIS_URL, serverTarget, uniqueNamespace } from './helpers/targets.js';

const locks: IdentifyLock[] = [];
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.close();
});

describe('the identify lock (a bucket\'s turn to log in, shared by every host)', () => {
  for (const [kind, url] of [['redis', REDIS_URL], ['postgres', POSTGRES_URL]] as const) {
    it(`gives a bucket's turn to one claimant at a time, for the time asked, and buckets apart (${kind})`, async (ctx) => {
      if (!(await serverTarget('identify-lock', kind, url)).available) return ctx.skip();
      const name = uniqueNamespace('identify');
      const [a, b] = [await openIdentifyLock(url, name), await openIdentifyLock(url, name)];
      locks.push(a, b);
      const claims = await Promise.all([a.claim(0, 400), b.claim(0, 400), a.claim(0, 400), b.claim(0, 400)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await b.claim(1, 400)).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      expect(await b.claim(0, 400)).toBe(true);
      // Another bot on the same server has its own turns.
      const other = await openIdentifyLock(url, `${name}-other`);
      locks.push(other);
      expect(await other.claim(0, 400)).toBe(true);
    });
  }

  it('the throttler waits for the bucket shard_id % max_concurrency, and gives up when aborted', async () => {
    const taken = new Map<number, number>();
    const lock: IdentifyLock = {
      async claim(bucket, ms) {
        const until = taken.get(bucket) ?? 0;
        if (Date.now() < until) return false;
        taken.set(bucket, Date.now() + ms);
        return true;
      },
      async close() {},
    };
    const throttler = sharedIdentifyThrottler({ lock, maxConcurrency: 2, spacingMs: 300, pollMs: 20 });
    const signal = new AbortController().signal;
    const started = Date.now();
    await Promise.all([throttler.waitForIdentify(0, signal), throttler.waitForIdentify(1, signal)]);
    expect(Date.now() - started).toBeLessThan(200);
    await throttler.waitForIdentify(2, signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const aborted = new AbortController();
    const waiting = throttler.waitForIdentify(4, aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toThrow();
  });
});
