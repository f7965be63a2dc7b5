/**
 * The identify lock against the real servers. A claim holds its bucket for the time asked, so a test
 * that asserts "only one claimant wins" must hold it for longer than its claims can take: the claims
 * here hold for a minute, and expiry is checked only as a lower bound (after waiting past the hold), so
 * no assertion depends on how fast the machine is. Each case also runs through a proxy that holds every
 * packet 250 ms, a loaded machine made on purpose: with the old 400 ms holds, two of four claims won there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openIdentifyLock, sharedIdentifyThrottler, type IdentifyLock } from '../../src/state/identify-lock.js';
import { POSTGRES_URL, REDIS_URL, serverTarget, uniqueNamespace } from './helpers/targets.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';

const HOLD = 60_000;
const locks: IdentifyLock[] = [];
const proxies: TcpProxy[] = [];
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/** `url` reached through a proxy that delays every packet by `ms` (0: straight through). */
async function slowed(url: string, ms: number): Promise<string> {
  if (ms === 0) return url;
  const parsed = new URL(url);
  const proxy = await startTcpProxy(Number(parsed.port || (parsed.protocol.startsWith('redis') ? 6379 : 5432)), parsed.hostname);
  proxy.delay(ms);
  proxies.push(proxy);
  parsed.port = String(proxy.port);
  return parsed.href;
}

async function open(url: string, name: string): Promise<IdentifyLock> {
  const lock = await openIdentifyLock(url, name);
  locks.push(lock);
  return lock;
}

describe('the identify lock (a bucket\'s turn to log in, shared by every host)', () => {
  for (const [kind, url] of [['redis', REDIS_URL], ['postgres', POSTGRES_URL]] as const) {
    for (const latency of [0, 250]) {
      const where = latency ? `, every packet held ${latency} ms` : '';
      it(`gives a bucket's turn to one claimant at a time, and buckets and bots apart (${kind}${where})`, async (ctx) => {
        if (!(await serverTarget('identify-lock', kind, url)).available) return ctx.skip();
        const name = uniqueNamespace('identify');
        const through = await slowed(url, latency);
        const [a, b] = [await open(through, name), await open(through, name)];
        const claims = await Promise.all([a.claim(0, HOLD), b.claim(0, HOLD), a.claim(0, HOLD), b.claim(0, HOLD)]);
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await a.claim(0, HOLD)).toBe(false);
        expect(await b.claim(1, HOLD)).toBe(true);
        // Another bot on the same server has its own turns.
        expect(await (await open(through, `${name}-other`)).claim(0, HOLD)).toBe(true);
      });

      it(`a turn is free again once its time is over (${kind}${where})`, async (ctx) => {
        if (!(await serverTarget('identify-lock', kind, url)).available) return ctx.skip();
        const lock = await open(await slowed(url, latency), uniqueNamespace('identify'));
        expect(await lock.claim(0, 300)).toBe(true);
        // The claim was made before it answered; waiting past its 300 ms from here is always enough.
        await new Promise((r) => setTimeout(r, 400));
        expect(await lock.claim(0, HOLD)).toBe(true);
        expect(await lock.claim(0, HOLD)).toBe(false);
      });
    }
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
    await throttler.waitForIdentify(2, signal);
    // Bucket 0 again: it waited for the first claim's 300 ms (a lower bound holds on any machine).
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const aborted = new AbortController();
    const waiting = throttler.waitForIdentify(4, aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toThrow();
  });
});
