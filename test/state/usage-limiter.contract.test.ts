import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import type { Backend } from '../../src/storage/registry.js';
import type { UsageLimiter, UsageTicket } from '../../src/state/usage/index.js';
import { fakeClock, type FakeClock } from './helpers/stores.js';
import { targets, uniqueNamespace } from './helpers/targets.js';
import { limiterOver, limits, openLimiter, purgeUsage } from './helpers/usage.js';

const call = (prompt: number, completion: number) => ({ promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion });
const HOUR = 3_600_000;

for (const target of await targets('usage', ['memory', 'sqlite', 'redis', 'postgres'])) {
  describe.runIf(target.available)(`usage limiter on ${target.kind}`, () => {
    let backend: Backend;
    let limiter: UsageLimiter;
    let clock: FakeClock;
    const namespaces: string[] = [];
    let ns: string;

    beforeAll(async () => {
      ns = uniqueNamespace(`usage-${target.kind}`);
      namespaces.push(ns);
      clock = fakeClock(Date.UTC(2025, 5, 1, 12));
      ({ backend, limiter } = await openLimiter(target.url, { namespace: ns, now: clock.now, leaseMs: 10 * 60_000 }));
    });
    afterAll(async () => {
      await limiter?.close();
      for (const namespace of namespaces) await purgeUsage(backend, namespace);
      await backend?.close();
    });

    /** A limiter in a namespace of its own, so a test starts from zero. */
    async function fresh(options: { windowSeconds?: number; leaseMs?: number } = {}) {
      const namespace = uniqueNamespace(`usage-${target.kind}`);
      namespaces.push(namespace);
      const own = await limiterOver(backend, { namespace, now: clock.now, leaseMs: options.leaseMs ?? 10 * 60_000, windowSeconds: options.windowSeconds });
      return own;
    }

    async function admitted(l: UsageLimiter, subject = { guildId: 'G1', channelId: 'C1', userId: 'U1' }, lim = limits()): Promise<UsageTicket> {
      const admission = await l.admit(subject, lim);
      if (!admission.ok) throw new Error(`refused: ${admission.limit}`);
      return admission.ticket;
    }

    it('counts tokens and cost per member, channel and server, and ranks members by tokens', async () => {
      const l = await fresh();
      const ann = await admitted(l, { guildId: 'G1', channelId: 'C1', userId: 'ann' });
      const first = await ann.record(call(1_000, 200), 'gpt-4o-mini');
      expect(first.member).toEqual({ inputTokens: 1_000, outputTokens: 200, totalTokens: 1_200, costNanoUsd: 270_000, runs: 1 });
      expect(first.costNanoUsd).toBe(270_000); // 1,000 × $0.15/M + 200 × $0.60/M = $0.00027
      await ann.record(call(500, 0), 'gpt-4o-mini-2024-07-18');
      await ann.release();
      const bob = await admitted(l, { guildId: 'G1', channelId: 'C2', userId: 'bob' });
      const last = await bob.record(call(3_000, 1_000), 'llama3.1:8b');
      await bob.release();
      expect(last.costNanoUsd).toBe(0);
      expect(last.guild).toEqual({ inputTokens: 4_500, outputTokens: 1_200, totalTokens: 5_700, costNanoUsd: 345_000, runs: 2 });

      const report = await l.guildUsage('G1', 2_000_000);
      expect(report.day).toBe('2025-06-01');
      expect(report.today.totalTokens).toBe(5_700);
      expect(report.topMembers.map((m) => [m.userId, m.totals.totalTokens, m.totals.runs])).toEqual([['bob', 4_000, 1], ['ann', 1_700, 1]]);
      expect(report.topChannels.map((c) => [c.channelId, c.totals.totalTokens])).toEqual([['C2', 4_000], ['C1', 1_700]]);
      expect((await l.guildUsage('G1', 0, 1)).topMembers).toHaveLength(1);
      expect((await l.guildUsage('G2', 0)).today.totalTokens).toBe(0);

      const mine = await l.memberUsage({ guildId: 'G1', userId: 'ann' }, limits({ userDailyTokens: 10_000 }));
      expect(mine).toMatchObject({ today: { totalTokens: 1_700, costNanoUsd: 345_000 }, memberTokensLeft: 8_300, guildTokensLeft: 2_000_000 - 5_700, runsInFlight: 0, runsThisHour: 1 });
      expect(mine.dayResetsAt.toISOString()).toBe('2025-06-02T00:00:00.000Z');
    });

    it('refuses a member over their daily tokens, with the figures and the next UTC midnight', async () => {
      const l = await fresh();
      const ticket = await admitted(l, undefined, limits({ userDailyTokens: 1_000 }));
      const result = await ticket.record(call(900, 300), 'gpt-4o');
      expect(result.remainingTokens).toBe(0);
      expect(await ticket.remainingTokens()).toBe(0);
      await ticket.release();
      const refusal = await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits({ userDailyTokens: 1_000 }));
      expect(refusal).toEqual({ ok: false, limit: 'userDailyTokens', current: 1_200, max: 1_000, resetsAt: new Date('2025-06-02T00:00:00Z'), where: 'server' });
      // Another member of the server is not affected, and an exempt role lifts the member cap.
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U2' }, limits({ userDailyTokens: 1_000 }))).ok).toBe(true);
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits({ userDailyTokens: 1_000, exempt: true }))).ok).toBe(true);
    });

    it('applies the server cap to everyone, exempt members included, and reports what is left mid-run', async () => {
      const l = await fresh();
      const lim = limits({ userDailyTokens: 5_000, guildDailyTokens: 3_000 });
      const ticket = await admitted(l, { guildId: 'G1', channelId: 'C1', userId: 'U1' }, lim);
      expect(await ticket.remainingTokens()).toBe(3_000);
      expect((await ticket.record(call(1_000, 500), 'gpt-4o')).remainingTokens).toBe(1_500);
      const other = await admitted(l, { guildId: 'G1', channelId: 'C1', userId: 'U2' }, lim);
      await other.record(call(2_000, 0), 'gpt-4o');
      // The other member's run used the server's budget: this run must stop.
      expect(await ticket.remainingTokens()).toBe(0);
      for (const exempt of [false, true]) {
        const refusal = await l.admit({ guildId: 'G1', channelId: 'C9', userId: 'U3' }, { ...lim, exempt });
        expect(refusal).toMatchObject({ ok: false, limit: 'guildDailyTokens', current: 3_500, max: 3_000 });
      }
      // Next UTC day: budgets start again.
      clock.advance(12 * HOUR);
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U3' }, lim)).ok).toBe(true);
      clock.advance(-12 * HOUR);
    });

    it('holds at most the concurrent limit, frees a slot on release, and ignores a second release', async () => {
      const l = await fresh();
      const a = await admitted(l);
      const b = await admitted(l);
      const refused = await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits());
      expect(refused).toEqual({ ok: false, limit: 'concurrentRuns', current: 2, max: 2, resetsAt: null, where: 'server' });
      expect((await l.memberUsage({ guildId: 'G1', userId: 'U1' }, limits())).runsInFlight).toBe(2);
      await a.release();
      await a.release();
      const c = await admitted(l);
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits())).ok).toBe(false);
      // The same member elsewhere (another server, DMs) has slots of its own.
      expect((await l.admit({ guildId: 'G2', channelId: 'C1', userId: 'U1' }, limits())).ok).toBe(true);
      expect((await l.admit({ guildId: null, channelId: 'D1', userId: 'U1' }, limits())).ok).toBe(true);
      await Promise.all([b.release(), c.release()]);
    });

    it('frees the slot of a run that never released it once its lease expires', async () => {
      const l = await fresh({ leaseMs: 5 * 60_000 });
      await admitted(l);
      await admitted(l);
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits())).ok).toBe(false);
      clock.advance(5 * 60_000 + 1);
      const after = await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits());
      expect(after.ok).toBe(true);
      expect((await l.memberUsage({ guildId: 'G1', userId: 'U1' }, limits())).runsInFlight).toBe(1);
    });

    it('refuses the run past the hourly limit with when the window closes, and opens again after it', async () => {
      const l = await fresh({ windowSeconds: 2 });
      const lim = limits({ runsPerHour: 3, concurrentRuns: 0 });
      for (let i = 0; i < 3; i++) await admitted(l, undefined, lim);
      const refused = await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, lim);
      expect(refused).toMatchObject({ ok: false, limit: 'runsPerHour', current: 3, max: 3, where: 'server' });
      const resetsIn = (refused as { resetsAt: Date }).resetsAt.getTime() - Date.now();
      expect(resetsIn).toBeGreaterThan(0);
      expect(resetsIn).toBeLessThanOrEqual(2_000);
      expect((await l.memberUsage({ guildId: 'G1', userId: 'U1' }, lim)).runsThisHour).toBe(3);
      // A refused run does not keep a concurrency slot.
      expect((await l.memberUsage({ guildId: 'G1', userId: 'U1' }, lim)).runsInFlight).toBe(0);
      await new Promise((r) => setTimeout(r, resetsIn + 1_100));
      expect((await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, lim)).ok).toBe(true);
    });

    it('gives back the slot of a request the hourly window refused', async () => {
      const l = await fresh();
      const lim = limits({ runsPerHour: 1, concurrentRuns: 1 });
      const first = await admitted(l, undefined, lim);
      await first.release();
      expect(await l.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, lim)).toMatchObject({ ok: false, limit: 'runsPerHour' });
      expect((await l.memberUsage({ guildId: 'G1', userId: 'U1' }, lim)).runsInFlight).toBe(0);
    });

    it('treats 0 as no limit and an exempt member as having no member limits', async () => {
      const l = await fresh();
      const none = limits({ runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 0 });
      const tickets = await Promise.all(Array.from({ length: 25 }, () => admitted(l, undefined, none)));
      expect(await tickets[0]!.remainingTokens()).toBe(Infinity);
      const exempt = limits({ runsPerHour: 1, concurrentRuns: 1, exempt: true });
      for (let i = 0; i < 5; i++) await admitted(l, { guildId: 'G1', channelId: 'C1', userId: 'VIP' }, exempt);
      const report = await l.memberUsage({ guildId: 'G1', userId: 'VIP' }, exempt);
      expect(report.memberTokensLeft).toBe(Infinity);
      expect(report.guildTokensLeft).toBe(2_000_000);
    });

    it('never over-admits 30 simultaneous requests: at most 2 held at once and exactly 5 in the hour', async () => {
      const l = await fresh();
      const lim = limits({ runsPerHour: 5, concurrentRuns: 2 });
      let inFlight = 0;
      let maxInFlight = 0;
      let admittedCount = 0;
      const reasons = new Set<string>();
      // Each requester keeps asking until the hourly limit answers; admitted runs hold their slot briefly.
      const requester = async (n: number) => {
        for (let attempt = 0; attempt < 200; attempt++) {
          const admission = await l.admit({ guildId: 'G1', channelId: `C${n}`, userId: 'flood' }, lim);
          if (admission.ok) {
            admittedCount++;
            maxInFlight = Math.max(maxInFlight, ++inFlight);
            await new Promise((r) => setTimeout(r, 5 + (n % 3) * 5));
            inFlight--;
            await admission.ticket.release();
            continue;
          }
          reasons.add(admission.limit);
          if (admission.limit === 'runsPerHour') return;
          await new Promise((r) => setTimeout(r, 2));
        }
        throw new Error('requester never saw the hourly limit');
      };
      await Promise.all(Array.from({ length: 30 }, (_, n) => requester(n)));
      expect(admittedCount).toBe(5);
      expect(maxInFlight).toBeLessThanOrEqual(2);
      expect(reasons).toEqual(new Set(['concurrentRuns', 'runsPerHour']));
    });

    // A memory backend cannot die; the others are checked here.
    if (target.kind !== 'memory') {
      it('reports a dead backend as a StorageError that says what failed', async () => {
        const namespace = uniqueNamespace(`usage-dead-${target.kind}`);
        const opened = await openLimiter(target.url, { namespace });
        // SQLite usage has a connection of its own, closed with the limiter; the servers' clients close with the backend.
        if (target.kind === 'sqlite') await opened.limiter.close();
        else await opened.backend.close();
        const failure = opened.limiter.admit({ guildId: 'G1', channelId: 'C1', userId: 'U1' }, limits());
        await expect(failure).rejects.toBeInstanceOf(StorageError);
        await expect(failure).rejects.toThrow(new RegExp(`Storage usage \\w+ failed on ${target.kind}`));
        if (target.kind === 'sqlite') await opened.backend.close();
      });
    }

    it('admits exactly the free slots when 30 ask at once, then exactly what is left of the hour', async () => {
      const l = await fresh();
      const lim = limits({ runsPerHour: 5, concurrentRuns: 2 });
      const wave = () => Promise.all(Array.from({ length: 30 }, (_, n) => l.admit({ guildId: 'G1', channelId: `C${n}`, userId: 'wave' }, lim)));
      const counts: number[] = [];
      for (let round = 0; round < 4; round++) {
        const results = await wave();
        const tickets = results.flatMap((r) => (r.ok ? [r.ticket] : []));
        counts.push(tickets.length);
        await Promise.all(tickets.map((t) => t.release()));
      }
      expect(counts).toEqual([2, 2, 1, 0]);
    });
  });
}
