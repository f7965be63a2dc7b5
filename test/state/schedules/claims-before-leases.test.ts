/**
 * Marks written before claims had leases (a deployment upgrading with schedules in its storage): the
 * SQLite table gains the lease columns on open, a Redis mark in the old `last|lastRun` form reads as it
 * did, and either way the occurrences already claimed stay claimed (settled: never taken over).
 */
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../../../src/storage/key-value.js';
import { openBackend } from '../../../src/storage/open.js';
import { redisClaims } from '../../../src/storage/redis/claims.js';
import { sqliteClaims } from '../../../src/storage/sqlite/claims.js';
import { MARK_TABLE } from '../../../src/storage/sql/mark-statements.js';
import { REDIS_URL, serverTarget, tempDir, uniqueNamespace } from '../helpers/targets.js';

const T = Date.UTC(2025, 2, 3, 9, 0);
const DAY = 24 * 60 * 60_000;
const lease = (nowMs: number) => ({ token: `t-${nowMs}`, endsMs: nowMs + 120_000, nowMs });

function exec(file: string, statements: string[]): Promise<void> {
  const db = new sqlite3.Database(file);
  return new Promise((resolve, reject) => db.exec(statements.join(';\n'), (error) => db.close(() => (error ? reject(error) : resolve()))));
}

describe('claims over marks from before leases', () => {
  it('SQLite: the table gains the lease columns, and a claimed occurrence stays claimed', async () => {
    const file = path.join(tempDir('old-marks'), 'bot.sqlite');
    await exec(file, [
      `CREATE TABLE ${MARK_TABLE} (ns TEXT NOT NULL, schedule TEXT NOT NULL, last_ms INTEGER NOT NULL, last_run_ms INTEGER, prev_run_ms INTEGER, PRIMARY KEY (ns, schedule))`,
      `INSERT INTO ${MARK_TABLE} VALUES ('ns', 'g1:old', ${T}, ${T}, NULL)`,
    ]);
    // Two openings at once, as two processes upgrading together: both add what is missing, neither fails.
    const [claims, other] = await Promise.all([sqliteClaims(file, 5_000, 'ns', file), sqliteClaims(file, 5_000, 'ns', file)]);
    try {
      expect(await claims.claim('g1:old', T, 'run', lease(T + DAY))).toEqual({ won: false });
      expect(await claims.marks(['g1:old'])).toEqual(new Map([['g1:old', { lastMs: T, lastRunMs: T }]]));
      expect(await other.claim('g1:old', T + DAY, 'run', lease(T + DAY))).toEqual({ won: true, lastRunMs: T });
    } finally {
      await claims.close();
      await other.close();
    }
  });

  describe('Redis', () => {
    const namespace = uniqueNamespace('old-marks');
    const opened: Array<{ close(): Promise<void> }> = [];
    afterAll(async () => {
      for (const backend of opened) await backend.close();
    });

    it('a mark in the old form reads as it did, and its occurrence stays claimed', async (ctx) => {
      const target = await serverTarget('old-marks', 'redis', REDIS_URL);
      if (!target.available) return ctx.skip();
      const backend = await openBackend(target.url, process.cwd(), { timeouts: DEFAULT_TIMEOUTS, onBackgroundError: () => {} });
      opened.push(backend);
      if (backend.native.kind !== 'redis') throw new Error('expected a Redis backend');
      const { client, commandMs } = backend.native;
      await client.hSet(`${namespace}:schedule-marks`, 'g1:old', `${T}|${T}`);
      try {
        const claims = redisClaims(client, namespace, 'redis', commandMs);
        expect(await claims.marks(['g1:old'])).toEqual(new Map([['g1:old', { lastMs: T, lastRunMs: T }]]));
        expect(await claims.claim('g1:old', T, 'run', lease(T + DAY))).toEqual({ won: false });
        expect(await claims.settle('g1:old', T, '')).toBe(false);
        expect(await claims.claim('g1:old', T + DAY, 'run', lease(T + DAY))).toEqual({ won: true, lastRunMs: T });
      } finally {
        await client.del(`${namespace}:schedule-marks`);
      }
    });
  });
});
