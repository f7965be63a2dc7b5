/**
 * Exactly-once claims of scheduled occurrences, on every backend (Redis and PostgreSQL when reachable):
 * one winner per occurrence however many claim it at once (from two openings of the storage, as two
 * processes would), never an occurrence again or an older one after a newer (a clock that jumps
 * back), and a skipped occurrence that moves the mark but not the last run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../../src/state/index.js';
import { purgeSchedules } from '../helpers/schedules.js';
import { targets, uniqueNamespace } from '../helpers/targets.js';

const T = Date.UTC(2025, 2, 3, 8, 0);
const MIN = 60_000;

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
      expect(await claims.claim('g1:aaaa', T, 'run')).toEqual({ won: true });
      expect(await claims.claim('g1:aaaa', T, 'run')).toEqual({ won: false });
      expect(await claims.claim('g1:aaaa', T + 15 * MIN, 'run')).toEqual({ won: true, lastRunMs: T });
      expect(await claims.marks(['g1:aaaa', 'g1:none'])).toEqual(new Map([['g1:aaaa', { lastMs: T + 15 * MIN, lastRunMs: T + 15 * MIN }]]));
    });

    it('never runs an older occurrence after a newer one (a clock that jumped back)', async () => {
      const claims = await open();
      expect((await claims.claim('g1:back', T + 60 * MIN, 'run')).won).toBe(true);
      expect(await claims.claim('g1:back', T + 30 * MIN, 'run')).toEqual({ won: false });
      expect(await claims.claim('g1:back', T + 60 * MIN, 'skip')).toEqual({ won: false });
    });

    it('a skipped occurrence moves the mark but not the last run', async () => {
      const claims = await open();
      await claims.claim('g1:skip', T, 'run');
      expect(await claims.claim('g1:skip', T + 24 * 60 * MIN, 'skip')).toEqual({ won: true, lastRunMs: T });
      expect(await claims.claim('g1:skip', T + 24 * 60 * MIN, 'run')).toEqual({ won: false });
      expect(await claims.claim('g1:skip', T + 48 * 60 * MIN, 'run')).toEqual({ won: true, lastRunMs: T });
      await claims.forget('g1:skip');
      expect(await claims.marks(['g1:skip'])).toEqual(new Map());
    });

    it('keeps schedules of different guilds apart', async () => {
      const claims = await open();
      expect((await claims.claim('g1:same', T, 'run')).won).toBe(true);
      expect((await claims.claim('g2:same', T, 'run')).won).toBe(true);
    });

    it('of 40 claims at once (from two openings of the storage, as two processes would), exactly one wins each occurrence', async () => {
      // Memory storage lives in one opening: both halves claim through it.
      const a = await open();
      const b = target.kind === 'memory' ? a : await open();
      for (let k = 0; k < 5; k++) {
        const at = T + k * 15 * MIN;
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim('g1:race', at, 'run')));
        expect(results.filter((r) => r.won)).toHaveLength(1);
      }
    });
  });
}
