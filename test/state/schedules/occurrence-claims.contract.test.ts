/**
 * Exactly-once claims of scheduled occurrences, on every backend (Redis and PostgreSQL when reachable):
 * one winner per occurrence however many claim it at once (from two openings of the storage, as two
 * processes would), never an occurrence again or an older one after a newer (a clock that jumps
 * back), and a skipped occurrence that moves the mark but not the last run. A claim to run holds a
 * lease until settled: taken over only once it has run out, by one claimer of many, and then its first
 * claimer settles nothing; a table or hash written before leases reads as settled marks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../../src/state/index.js';
import { purgeSchedules } from '../helpers/schedules.js';
import { targets, uniqueNamespace } from '../helpers/targets.js';

const T = Date.UTC(2025, 2, 3, 8, 0);
const MIN = 60_000;

/** A lease of two minutes from `nowMs`, with its own token. */
let leases = 0;
const leaseAt = (nowMs: number, token = `token-${++leases}`) => ({ token, endsMs: nowMs + 2 * MIN, nowMs });

for (const target of await targets('schedule-claims')) {
  describe.runIf(target.available)(`occurrence claims on ${target.kind}`, () => {
    const opened: Storage[] = [];
    const namespace = uniqueNamespace(`marks-${target.kind}`);
    afterAll(async () => {
      for (const storage of opened.splice(0)) await storage.close();
      await purgeSchedules(target.url, namespace);
    });

    async function open() {
      const storage = await createStorage({ keyvUrl: target.url, historyTokenBudget: 8_000 }, { namespace, logger: () => {} });
      opened.push(storage);
      return storage.openScheduleClaims();
    }

    it('gives an occurrence to the first claim only, and tells the next winner when the schedule last ran', async () => {
      const claims = await open();
      const lease = leaseAt(T);
      expect(await claims.claim('g1:aaaa', T, 'run', lease)).toEqual({ won: true });
      expect(await claims.settle('g1:aaaa', T, lease.token)).toBe(true);
      expect(await claims.claim('g1:aaaa', T, 'run', leaseAt(T + 10 * MIN))).toEqual({ won: false });
      expect(await claims.claim('g1:aaaa', T + 15 * MIN, 'run', leaseAt(T + 15 * MIN))).toEqual({ won: true, lastRunMs: T });
      expect(await claims.marks(['g1:aaaa', 'g1:none'])).toEqual(new Map([['g1:aaaa', { lastMs: T + 15 * MIN, lastRunMs: T + 15 * MIN }]]));
    });

    it('never runs an older occurrence after a newer one (a clock that jumped back)', async () => {
      const claims = await open();
      const lease = leaseAt(T + 60 * MIN);
      expect((await claims.claim('g1:back', T + 60 * MIN, 'run', lease)).won).toBe(true);
      await claims.settle('g1:back', T + 60 * MIN, lease.token);
      expect(await claims.claim('g1:back', T + 30 * MIN, 'run', leaseAt(T + 90 * MIN))).toEqual({ won: false });
      expect(await claims.claim('g1:back', T + 60 * MIN, 'skip', leaseAt(T + 90 * MIN))).toEqual({ won: false });
    });

    it('a skipped occurrence moves the mark but not the last run', async () => {
      const claims = await open();
      const lease = leaseAt(T);
      await claims.claim('g1:skip', T, 'run', lease);
      await claims.settle('g1:skip', T, lease.token);
      expect(await claims.claim('g1:skip', T + 24 * 60 * MIN, 'skip', leaseAt(T + 27 * 60 * MIN))).toEqual({ won: true, lastRunMs: T });
      expect(await claims.claim('g1:skip', T + 24 * 60 * MIN, 'run', leaseAt(T + 27 * 60 * MIN))).toEqual({ won: false });
      expect(await claims.claim('g1:skip', T + 48 * 60 * MIN, 'run', leaseAt(T + 48 * 60 * MIN))).toEqual({ won: true, lastRunMs: T });
      await claims.forget('g1:skip');
      expect(await claims.marks(['g1:skip'])).toEqual(new Map());
    });

    it('a claim to run left unsettled is taken over once its lease ends, and its first claimer then settles nothing', async () => {
      const claims = await open();
      const first = leaseAt(T);
      expect(await claims.claim('g1:lease', T, 'run', first)).toEqual({ won: true });
      // Its claimer died before the run began. While the lease lasts, the occurrence stays its.
      expect(await claims.claim('g1:lease', T, 'run', leaseAt(T + MIN))).toEqual({ won: false, leaseEndsMs: first.endsMs });
      const second = leaseAt(first.endsMs + 1);
      expect(await claims.claim('g1:lease', T, 'run', second)).toEqual({ won: true });
      expect(await claims.settle('g1:lease', T, first.token)).toBe(false);
      expect(await claims.settle('g1:lease', T, second.token)).toBe(true);
      // Settled, it is never taken again, however late.
      expect(await claims.claim('g1:lease', T, 'run', leaseAt(T + 60 * MIN))).toEqual({ won: false });
      expect(await claims.settle('g1:lease', T, second.token)).toBe(false);
    });

    it('an occurrence taken over too late is skipped, and the runs after it learn the last one that really ran', async () => {
      const claims = await open();
      const ran = leaseAt(T);
      await claims.claim('g1:late', T, 'run', ran);
      await claims.settle('g1:late', T, ran.token);
      // The next day's claim dies unsettled; found three hours later, it is skipped (no lease to hold).
      const next = T + 24 * 60 * MIN;
      expect(await claims.claim('g1:late', next, 'run', leaseAt(next))).toEqual({ won: true, lastRunMs: T });
      expect(await claims.claim('g1:late', next, 'skip', leaseAt(next + 180 * MIN))).toEqual({ won: true, lastRunMs: T });
      expect(await claims.claim('g1:late', next, 'run', leaseAt(next + 200 * MIN))).toEqual({ won: false });
      expect(await claims.marks(['g1:late'])).toEqual(new Map([['g1:late', { lastMs: next, lastRunMs: T }]]));
      // A later occurrence over a claim that never began counts from the last that did, too.
      const third = next + 24 * 60 * MIN;
      expect(await claims.claim('g1:late', third, 'run', leaseAt(third))).toEqual({ won: true, lastRunMs: T });
      expect(await claims.claim('g1:late', third + 24 * 60 * MIN, 'run', leaseAt(third + 24 * 60 * MIN))).toEqual({ won: true, lastRunMs: T });
    });

    it('a skip holds no lease: there is nothing to settle or take over', async () => {
      const claims = await open();
      expect(await claims.claim('g1:noskip', T, 'skip', leaseAt(T, 'skipper'))).toEqual({ won: true });
      expect(await claims.settle('g1:noskip', T, 'skipper')).toBe(false);
      expect(await claims.claim('g1:noskip', T, 'run', leaseAt(T + 60 * MIN))).toEqual({ won: false });
    });

    it('keeps schedules of different guilds apart', async () => {
      const claims = await open();
      expect((await claims.claim('g1:same', T, 'run', leaseAt(T))).won).toBe(true);
      expect((await claims.claim('g2:same', T, 'run', leaseAt(T))).won).toBe(true);
    });

    it('of 40 claims at once (from two openings of the storage, as two processes would), exactly one wins each occurrence', async () => {
      // Memory storage lives in one opening: both halves claim through it.
      const a = await open();
      const b = target.kind === 'memory' ? a : await open();
      for (let k = 0; k < 5; k++) {
        const at = T + k * 15 * MIN;
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim('g1:race', at, 'run', leaseAt(at))));
        expect(results.filter((r) => r.won)).toHaveLength(1);
      }
    });

    it('of 40 claims at once of a lease that ended unsettled, exactly one takes it over', async () => {
      const a = await open();
      const b = target.kind === 'memory' ? a : await open();
      const dead = leaseAt(T);
      await a.claim('g1:takeover', T, 'run', dead);
      const after = dead.endsMs + 1;
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim('g1:takeover', T, 'run', leaseAt(after, `taker-${i}`))));
      expect(results.filter((r) => r.won)).toHaveLength(1);
      const winner = results.findIndex((r) => r.won);
      const settled = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).settle('g1:takeover', T, `taker-${i}`)));
      expect(settled.map((ok, i) => (ok ? i : -1)).filter((i) => i >= 0)).toEqual([winner]);
    });
  });
}
