/**
 * Claims: what admission sets aside for a run (a concurrency slot, an estimate of tokens), how real
 * usage settles it, the per-call check against the shared budgets, and how the claims of a dead or
 * vanished process go away. On every backend; Redis and PostgreSQL when reachable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/storage/registry.js';
import type { UsageLimiter, UsageTicket } from '../../src/state/usage/index.js';
import { fakeClock, type FakeClock } from './helpers/stores.js';
import { targets, uniqueNamespace } from './helpers/targets.js';
import { limiterOver, limits, openLimiter, purgeUsage, type LimiterOptions } from './helpers/usage.js';

const call = (tokens: number) => ({ promptTokens: tokens, completionTokens: 0, totalTokens: tokens });
const G1 = { guildId: 'G1', channelId: 'C1' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const target of await targets('claims', ['memory', 'sqlite', 'redis', 'postgres'])) {
  describe.runIf(target.available)(`usage claims on ${target.kind}`, () => {
    let backend: Backend;
    let base: UsageLimiter;
    let clock: FakeClock;
    const namespaces: string[] = [];
    const opened: UsageLimiter[] = [];

    beforeAll(async () => {
      clock = fakeClock(Date.UTC(2025, 5, 1, 12));
      const namespace = uniqueNamespace(`claims-${target.kind}`);
      namespaces.push(namespace);
      ({ backend, limiter: base } = await openLimiter(target.url, { namespace, now: clock.now }));
    });
    afterAll(async () => {
      for (const l of opened) await l.close();
      await base?.close();
      for (const namespace of namespaces) await purgeUsage(backend, namespace);
      await backend?.close();
    });

    /** A namespace of its own, so a test starts from zero; `limiter` opens (another process's) limiter over it. */
    function place() {
      const namespace = uniqueNamespace(`claims-${target.kind}`);
      namespaces.push(namespace);
      return {
        async limiter(options: Partial<LimiterOptions> = {}) {
          const l = await limiterOver(backend, { namespace, now: clock.now, leaseMs: 60_000, ...options });
          opened.push(l);
          return l;
        },
      };
    }

    async function admitted(l: UsageLimiter, userId: string, lim = limits()): Promise<UsageTicket> {
      const admission = await l.admit({ ...G1, userId }, lim);
      if (!admission.ok) throw new Error(`refused: ${admission.limit}`);
      return admission.ticket;
    }

    it('sets an estimate aside at admission, so requests at the same moment cannot all count on the same remainder', async () => {
      const l = await place().limiter({ reserveTokens: 6_000 });
      const lim = limits({ guildDailyTokens: 10_000, userDailyTokens: 0 });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => l.admit({ ...G1, userId: `U${i}` }, lim)));
      const tickets = results.flatMap((r) => (r.ok ? [r.ticket] : []));
      expect(tickets).toHaveLength(2);
      expect(tickets.map((t) => t.reserved).sort()).toEqual([4_000, 6_000]);
      const refusal = results.find((r) => !r.ok);
      expect(refusal).toMatchObject({ ok: false, limit: 'guildDailyTokens', current: 0, max: 10_000, reserved: 10_000 });
    });

    it('settles a reservation with real usage, and frees what is left of it on release', async () => {
      const l = await place().limiter({ reserveTokens: 6_000 });
      const lim = limits({ guildDailyTokens: 10_000, userDailyTokens: 0 });
      const a = await admitted(l, 'A', lim);
      const b = await admitted(l, 'B', lim);
      await a.record(call(2_000), 'gpt-4o');
      // a holds 4,000 more, b its 4,000: b may spend its own, and 10,000 − 2,000 − 4,000 of a's is not b's.
      expect(await b.check()).toBeUndefined();
      expect(await b.remainingTokens()).toBe(4_000);
      expect(await a.remainingTokens()).toBe(4_000);
      expect((await l.admit({ ...G1, userId: 'C' }, lim)).ok).toBe(false);
      await a.release();
      const c = await admitted(l, 'C', lim);
      expect(c.reserved).toBe(4_000);
    });

    it('lets a run go on while its budget has room and stops it before the call once other runs spent it', async () => {
      const l = await place().limiter();
      const lim = limits({ guildDailyTokens: 10_000, userDailyTokens: 0 });
      const a = await admitted(l, 'A', lim);
      const b = await admitted(l, 'B', lim);
      await a.record(call(9_000), 'gpt-4o');
      expect(await b.check()).toBeUndefined();
      await a.record(call(1_500), 'gpt-4o');
      expect(await b.check()).toMatchObject({ limit: 'guildDailyTokens', current: 10_500, max: 10_000, where: 'server', resetsAt: new Date('2025-06-02T00:00:00Z') });
    });

    it('at a daily cap spent exactly, refuses the next call and the next run (>=, not >)', async () => {
      const l = await place().limiter();
      const member = limits({ userDailyTokens: 1_000 });
      const a = await admitted(l, 'A', member);
      await a.record(call(1_000), 'gpt-4o');
      expect(await a.check()).toMatchObject({ limit: 'userDailyTokens', current: 1_000, max: 1_000 });
      await a.release();
      expect(await l.admit({ ...G1, userId: 'A' }, member)).toMatchObject({ ok: false, limit: 'userDailyTokens', current: 1_000, max: 1_000 });

      const server = limits({ guildDailyTokens: 2_000, userDailyTokens: 0 });
      const b = await admitted(l, 'B', server);
      await b.record(call(1_000), 'gpt-4o');
      expect(await b.check()).toMatchObject({ limit: 'guildDailyTokens', current: 2_000, max: 2_000 });
      expect(await l.admit({ ...G1, userId: 'C' }, server)).toMatchObject({ ok: false, limit: 'guildDailyTokens', current: 2_000 });
      // One token short of the cap still has room.
      const other = await place().limiter();
      const d = await admitted(other, 'D', limits({ userDailyTokens: 1_000 }));
      await d.record(call(999), 'gpt-4o');
      expect(await d.check()).toBeUndefined();
      expect((await other.admit({ ...G1, userId: 'D' }, limits({ userDailyTokens: 1_000 }))).ok).toBe(true);
    });

    // Memory counters live in one limiter: there is no other process to share them with.
    if (target.kind === 'memory') return;

    it('a process restarted in the same place drops its dead predecessor\'s claims at once; another place keeps its own', async () => {
      const shared = place();
      const dead = await shared.limiter({ owner: { id: 'boot-1', slot: 'host-a:main' }, reserveTokens: 500 });
      const elsewhere = await shared.limiter({ owner: { id: 'boot-9', slot: 'host-b:main' } });
      await admitted(dead, 'U1');
      await admitted(dead, 'U1');
      await admitted(elsewhere, 'U2');
      await admitted(elsewhere, 'U2');
      expect(await dead.admit({ ...G1, userId: 'U1' }, limits())).toMatchObject({ ok: false, limit: 'concurrentRuns', current: 2 });
      // The process is killed (its limiter never closes, nothing is released) and started again here.
      const restarted = await shared.limiter({ owner: { id: 'boot-2', slot: 'host-a:main' } });
      expect(restarted.releasedAtStart).toBe(2);
      expect((await restarted.memberUsage({ guildId: 'G1', userId: 'U1' }, limits())).runsInFlight).toBe(0);
      expect((await restarted.admit({ ...G1, userId: 'U1' }, limits())).ok).toBe(true);
      expect(await restarted.admit({ ...G1, userId: 'U2' }, limits())).toMatchObject({ ok: false, limit: 'concurrentRuns' });
    });

    it('a live process\'s heartbeat keeps its claims; those of a process that vanished expire after the lease', async () => {
      const shared = place();
      const vanishing = await shared.limiter({ owner: { id: 'far-1', slot: 'host-far:main' }, heartbeatMs: 40, leaseMs: 60_000 });
      const watcher = await shared.limiter({ owner: { id: 'near-1', slot: 'host-near:main' } });
      await admitted(vanishing, 'U1');
      await admitted(vanishing, 'U1');
      clock.advance(50_000);
      await sleep(200); // a few heartbeats: the claims now last until 60 s after this moment
      clock.advance(30_000); // past the first expiry, within the renewed one
      expect(await watcher.admit({ ...G1, userId: 'U1' }, limits())).toMatchObject({ ok: false, limit: 'concurrentRuns', current: 2 });
      await vanishing.close(); // the heartbeat stops: as if the process were gone
      clock.advance(60_001);
      expect((await watcher.admit({ ...G1, userId: 'U1' }, limits())).ok).toBe(true);
    });
  });
}
