/**
 * The table and statements the SQL occurrence claims (SQLite, PostgreSQL) share, in either dialect. A claim is one upsert:
 * it inserts the schedule's first mark, or moves the mark forward only where it is still behind
 * (`m.last_ms < excluded.last_ms`), or takes over a claim to run of the same occurrence whose lease ran
 * out unsettled, and returns a row only when it did. Both databases evaluate the condition against the
 * row as it is when the statement holds its lock, so two claimers of one occurrence cannot both get a
 * row. Every right-hand side of the update reads the old row: `prev_run_ms` becomes the last run that
 * really happened (an unsettled claim's own occurrence never ran, so then it stays the one before),
 * which is how the winner learns when the schedule last ran.
 */
import type { ClaimLease, ClaimOutcome, OccurrenceMark } from '../occurrence-claims.js';

/** Where the marks live, beside the Keyv table. */
export const MARK_TABLE = 'threadwise_schedule_marks';

export function markSchema(big: 'INTEGER' | 'BIGINT'): string {
  return `CREATE TABLE IF NOT EXISTS ${MARK_TABLE} (ns TEXT NOT NULL, schedule TEXT NOT NULL, last_ms ${big} NOT NULL, ` +
    `last_run_ms ${big}, prev_run_ms ${big}, lease_token TEXT, lease_ends_ms ${big}, PRIMARY KEY (ns, schedule))`;
}

/** The lease columns, added to a table made before claims had leases. */
export const LEASE_COLUMNS = [['lease_token', 'TEXT'], ['lease_ends_ms', 'BIGINT']] as const;

type Param = (n: number) => string;

/** The last run that happened, as the old row says: an unsettled claim's occurrence did not run. */
const LAST_RAN = 'CASE WHEN m.lease_token IS NULL THEN m.last_run_ms ELSE m.prev_run_ms END';

/** The claim upsert; parameters: ns, schedule, occurrence, occurrence-if-run, lease token, lease end, now. */
export function claimStatement(p: Param): string {
  return `INSERT INTO ${MARK_TABLE} AS m (ns, schedule, last_ms, last_run_ms, prev_run_ms, lease_token, lease_ends_ms) ` +
    `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, NULL, ${p(5)}, ${p(6)}) ` +
    `ON CONFLICT (ns, schedule) DO UPDATE SET prev_run_ms = ${LAST_RAN}, last_ms = excluded.last_ms, ` +
    `last_run_ms = COALESCE(excluded.last_run_ms, ${LAST_RAN}), lease_token = excluded.lease_token, lease_ends_ms = excluded.lease_ends_ms ` +
    `WHERE m.last_ms < excluded.last_ms OR (m.last_ms = excluded.last_ms AND m.lease_token IS NOT NULL AND m.lease_ends_ms < ${p(7)}) ` +
    'RETURNING prev_run_ms';
}

export function claimParams(ns: string, schedule: string, atMs: number, mode: 'run' | 'skip', lease: ClaimLease): unknown[] {
  const run = mode === 'run';
  return [ns, schedule, atMs, run ? atMs : null, run ? lease.token : null, run ? lease.endsMs : null, lease.nowMs];
}

/** A claim's rows as its outcome (none: lost); drivers return BIGINT as a string. */
export function claimOutcome(rows: ReadonlyArray<Record<string, unknown>>): ClaimOutcome | undefined {
  const row = rows[0];
  if (!row) return undefined;
  const previous = row.prev_run_ms;
  return previous === null || previous === undefined ? { won: true } : { won: true, lastRunMs: Number(previous) };
}

/** After a lost claim: when the occurrence's unsettled lease ends, if it has one; parameters: ns, schedule, occurrence. */
export const leaseStatement = (p: Param) =>
  `SELECT lease_ends_ms FROM ${MARK_TABLE} WHERE ns = ${p(1)} AND schedule = ${p(2)} AND last_ms = ${p(3)} AND lease_token IS NOT NULL`;

export function lostOutcome(rows: ReadonlyArray<Record<string, unknown>>): ClaimOutcome {
  const ends = rows[0]?.lease_ends_ms;
  return ends === null || ends === undefined ? { won: false } : { won: false, leaseEndsMs: Number(ends) };
}

/** Settle a claim's lease if it is still this token's; parameters: ns, schedule, occurrence, token. A row back: settled. */
export const settleStatement = (p: Param) =>
  `UPDATE ${MARK_TABLE} SET lease_token = NULL, lease_ends_ms = NULL WHERE ns = ${p(1)} AND schedule = ${p(2)} AND last_ms = ${p(3)} AND lease_token = ${p(4)} RETURNING schedule`;

/** The marks of some schedules; parameters: ns, then the schedules. */
export function marksStatement(p: Param, count: number): string {
  return `SELECT schedule, last_ms, last_run_ms FROM ${MARK_TABLE} WHERE ns = ${p(1)} AND schedule IN (${Array.from({ length: count }, (_, i) => p(i + 2)).join(', ')})`;
}

export function marksFrom(rows: ReadonlyArray<Record<string, unknown>>): Map<string, OccurrenceMark> {
  return new Map(rows.map((r) => [String(r.schedule), { lastMs: Number(r.last_ms), ...(r.last_run_ms === null || r.last_run_ms === undefined ? {} : { lastRunMs: Number(r.last_run_ms) }) }]));
}

export const forgetStatement = (p: Param) => `DELETE FROM ${MARK_TABLE} WHERE ns = ${p(1)} AND schedule = ${p(2)}`;
