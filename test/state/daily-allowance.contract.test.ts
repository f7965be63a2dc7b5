/**
 * Daily allowances (the web search cap) on every backend: exact when many take at once through two
 * separate connections (as two bot processes would), per server, given back on failure, fresh the
 * next UTC day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/storage/registry.js';
import type { UsageLimiter } from '../../src/state/usage/index.js';
import { fakeClock, type FakeClock } from './helpers/stores.js';
import { targets, uniqueNamespace } from './helpers/targets.js';
import { openLimiter, purgeUsage } from './helpers/usage.js';

for (const target of await targets('daily', ['memory', 'sqlite', 'redis', 'postgres'])) {
  describe.runIf(target.available)(`daily allowance on ${target.kind}`, () => {
    let first: { backend: Backend; limiter: UsageLimiter };
    let second: { backend: Backend; limiter: UsageLimiter };
    let clock: FakeClock;
    let ns: string;

    beforeAll(async () => {
      ns = uniqueNamespace(`daily-${target.kind}`);
      clock = fakeClock(Date.UTC(2025, 5, 1, 22));
      first = await openLimiter(target.url, { namespace: ns, now: clock.now });
      // Memory is one process's store: its second "process" is the same one.
      second = target.kind === 'memory' ? first : await openLimiter(target.url, { namespace: ns, now: clock.now });
    });
    afterAll(async () => {
      await first?.limiter.close();
      if (second !== first) await second?.limiter.close();
      await purgeUsage(first.backend, ns);
      await first?.backend.close();
      if (second !== first) await second?.backend.close();
    });

    it('grants exactly the cap when many searches race through two connections, and refuses the next until midnight UTC', async () => {
      const takes = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? second : first).limiter.takeDaily('web_search', 'G1', 5)));
      expect(takes.filter((t) => t.ok)).toHaveLength(5);
      const refused = takes.find((t) => !t.ok)!;
      expect(refused).toMatchObject({ ok: false, used: 5, max: 5 });
      expect(refused.resetsAt.toISOString()).toBe('2025-06-02T00:00:00.000Z');
      // Another server has its own allowance.
      expect((await first.limiter.takeDaily('web_search', 'G2', 5)).ok).toBe(true);
      // A failed search's use comes back.
      const granted = takes.find((t) => t.ok)!;
      if (granted.ok) await granted.giveBack();
      expect((await second.limiter.takeDaily('web_search', 'G1', 5)).ok).toBe(true);
      expect((await first.limiter.takeDaily('web_search', 'G1', 5)).ok).toBe(false);
      // The next UTC day starts from zero.
      clock.advance(2 * 3_600_000);
      expect(await first.limiter.takeDaily('web_search', 'G1', 5)).toMatchObject({ ok: true, used: 1 });
    });

    it('counts nothing with no cap (0)', async () => {
      for (let i = 0; i < 3; i++) expect(await first.limiter.takeDaily('web_search', 'G3', 0)).toMatchObject({ ok: true, used: 0 });
    });
  });
}
