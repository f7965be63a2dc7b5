/**
 * Occurrence claims in PostgreSQL. A claim is one upsert statement (../sql/mark-statements.ts): PostgreSQL locks
 * the schedule's row for the conflict update and checks the condition against its latest committed
 * version, so of two processes claiming the same occurrence, the second finds the mark already there
 * and gets no row.
 */
import type pg from 'pg';
import type { OccurrenceClaims } from '../occurrence-claims.js';
import { createAll } from '../postgres-schema.js';
import { claimOutcome, claimParams, claimStatement, forgetStatement, LEASE_COLUMNS, leaseStatement, lostOutcome, MARK_TABLE, marksFrom, markSchema, marksStatement, settleStatement } from '../sql/mark-statements.js';
import { guarded } from '../storage-failure.js';

const p = (n: number) => `$${n}`;

export async function postgresClaims(pool: pg.Pool, ns: string, where: string): Promise<OccurrenceClaims> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('postgres', where, `schedule ${action}`, call);
  // A table from before leases gets their columns.
  const lease = LEASE_COLUMNS.map(([column, type]) => `ALTER TABLE ${MARK_TABLE} ADD COLUMN IF NOT EXISTS ${column} ${type}`);
  await run('setup', () => createAll((statement) => pool.query(statement), [markSchema('BIGINT'), ...lease]));
  // The parameters' types come from the columns they are inserted into or compared with.
  const claim = claimStatement(p);
  return {
    claim: (schedule, atMs, mode, leaseOf) =>
      run('claim', async () => claimOutcome((await pool.query(claim, claimParams(ns, schedule, atMs, mode, leaseOf))).rows) ?? lostOutcome((await pool.query(leaseStatement(p), [ns, schedule, atMs])).rows)),
    settle: (schedule, atMs, token) => run('settle', async () => ((await pool.query(settleStatement(p), [ns, schedule, atMs, token])).rowCount ?? 0) > 0),
    marks: (schedules) => run('read', async () => (schedules.length ? marksFrom((await pool.query(marksStatement(p, schedules.length), [ns, ...schedules])).rows) : new Map())),
    forget: (schedule) => run('forget', async () => void (await pool.query(forgetStatement(p), [ns, schedule]))),
    close: async () => {},
  };
}
