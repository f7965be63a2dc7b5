/**
 * Occurrence claims in the SQLite file, on a connection of their own (the project opens SQLite only
 * through SqliteConnection). A claim is one upsert statement (../sql/mark-statements.ts): SQLite runs it under the
 * database's write lock, so two processes on one file take turns and only one moves the mark.
 */
import type { OccurrenceClaims } from '../occurrence-claims.js';
import { claimOutcome, claimParams, claimStatement, forgetStatement, LEASE_COLUMNS, leaseStatement, lostOutcome, MARK_TABLE, marksFrom, markSchema, marksStatement, settleStatement } from '../sql/mark-statements.js';
import { SqliteConnection } from '../sqlite-connection.js';
import { guarded } from '../storage-failure.js';

const p = (n: number) => `?${n}`;

export async function sqliteClaims(file: string, busyMs: number, ns: string, where: string): Promise<OccurrenceClaims> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('sqlite', where, `schedule ${action}`, call);
  const conn = await run('connection', () => SqliteConnection.open(file, { busyMs, synchronousNormal: true }));
  try {
    await run('setup', async () => {
      await conn.run(markSchema('INTEGER'));
      await addLeaseColumns(conn);
    });
  } catch (error) {
    await conn.close().catch(() => undefined);
    throw error;
  }
  const claim = claimStatement(p);
  return {
    claim: (schedule, atMs, mode, lease) =>
      run('claim', async () => claimOutcome(await conn.all(claim, claimParams(ns, schedule, atMs, mode, lease))) ?? lostOutcome(await conn.all(leaseStatement(p), [ns, schedule, atMs]))),
    settle: (schedule, atMs, token) => run('settle', async () => (await conn.all(settleStatement(p), [ns, schedule, atMs, token])).length > 0),
    marks: (schedules) => run('read', async () => (schedules.length ? marksFrom(await conn.all(marksStatement(p, schedules.length), [ns, ...schedules])) : new Map())),
    forget: (schedule) => run('forget', async () => void (await conn.run(forgetStatement(p), [ns, schedule]))),
    close: () => conn.close(),
  };
}

/** A file from before leases gets their columns; another process adding them at the same moment is no error. */
async function addLeaseColumns(conn: SqliteConnection): Promise<void> {
  const has = async () => new Set((await conn.all<{ name: string }>(`PRAGMA table_info(${MARK_TABLE})`)).map((c) => c.name));
  for (const [column, type] of LEASE_COLUMNS) {
    if ((await has()).has(column)) continue;
    try {
      await conn.run(`ALTER TABLE ${MARK_TABLE} ADD COLUMN ${column} ${type}`);
    } catch (error) {
      if (!(await has()).has(column)) throw error;
    }
  }
}
