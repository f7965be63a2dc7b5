/**
 * Occurrence claims in the SQLite file, on a connection of their own (the project opens SQLite only
 * through SqliteConnection). A claim is one upsert statement (sql-marks.ts): SQLite runs it under the
 * database's write lock, so two processes on one file take turns and only one moves the mark.
 */
import { SqliteConnection } from '../../storage/sqlite-connection.js';
import { guarded } from '../backends/backend.js';
import type { OccurrenceClaims } from './occurrence-claims.js';
import { claimOutcome, claimParams, claimStatement, forgetStatement, marksFrom, markSchema, marksStatement } from './sql-marks.js';

const p = (n: number) => `?${n}`;

export async function sqliteClaims(file: string, busyMs: number, ns: string, where: string): Promise<OccurrenceClaims> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('sqlite', where, `schedule ${action}`, call);
  const conn = await run('connection', () => SqliteConnection.open(file, { busyMs, synchronousNormal: true }));
  try {
    await run('setup', () => conn.run(markSchema('INTEGER')));
  } catch (error) {
    await conn.close().catch(() => undefined);
    throw error;
  }
  const claim = claimStatement(p);
  return {
    claim: (schedule, atMs, mode) => run('claim', async () => claimOutcome(await conn.all(claim, claimParams(ns, schedule, atMs, mode)))),
    marks: (schedules) => run('read', async () => (schedules.length ? marksFrom(await conn.all(marksStatement(p, schedules.length), [ns, ...schedules])) : new Map())),
    forget: (schedule) => run('forget', async () => void (await conn.run(forgetStatement(p), [ns, schedule]))),
    close: () => conn.close(),
  };
}
