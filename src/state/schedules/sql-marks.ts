/**
 * The table and statements the SQLite and PostgreSQL occurrence claims share. A claim is one upsert:
 * it inserts the schedule's first mark, or moves the mark forward only where it is still behind
 * (`WHERE m.last_ms < excluded.last_ms`), and returns a row only when it did. Both databases evaluate
 * the condition against the row as it is when the statement holds its lock, so two claimers of one
 * occurrence cannot both get a row. `prev_run_ms` is set from the old `last_run_ms` in the same update
 * (every right-hand side reads the old row), which is how the winner learns when the schedule last ran.
 */
import type { ClaimOutcome, OccurrenceMark } from './occurrence-claims.js';

/** Where the marks live, beside the Keyv table. */
export const MARK_TABLE = 'threadwise_schedule_marks';

export function markSchema(big: 'INTEGER' | 'BIGINT'): string {
  return `CREATE TABLE IF NOT EXISTS ${MARK_TABLE} (ns TEXT NOT NULL, schedule TEXT NOT NULL, last_ms ${big} NOT NULL, ` +
    `last_run_ms ${big}, prev_run_ms ${big}, PRIMARY KEY (ns, schedule))`;
}

type Param = (n: number) => string;

/** The claim upsert; parameters: ns, schedule, occurrence, occurrence-if-run (or null). */
export function claimStatement(p: Param): string {
  return `INSERT INTO ${MARK_TABLE} AS m (ns, schedule, last_ms, last_run_ms, prev_run_ms) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, NULL) ` +
    `ON CONFLICT (ns, schedule) DO UPDATE SET prev_run_ms = m.last_run_ms, last_ms = excluded.last_ms, ` +
    `last_run_ms = COALESCE(excluded.last_run_ms, m.last_run_ms) WHERE m.last_ms < excluded.last_ms RETURNING prev_run_ms`;
}

export function claimParams(ns: string, schedule: string, atMs: number, mode: 'run' | 'skip'): unknown[] {
  return [ns, schedule, atMs, mode === 'run' ? atMs : null];
}

/** A claim's rows (none: lost) as its outcome; drivers return BIGINT as a string. */
export function claimOutcome(rows: ReadonlyArray<Record<string, unknown>>): ClaimOutcome {
  const row = rows[0];
  if (!row) return { won: false };
  const previous = row.prev_run_ms;
  return previous === null || previous === undefined ? { won: true } : { won: true, lastRunMs: Number(previous) };
}

/** The marks of some schedules; parameters: ns, then the schedules. */
export function marksStatement(p: Param, count: number): string {
  return `SELECT schedule, last_ms, last_run_ms FROM ${MARK_TABLE} WHERE ns = ${p(1)} AND schedule IN (${Array.from({ length: count }, (_, i) => p(i + 2)).join(', ')})`;
}

export function marksFrom(rows: ReadonlyArray<Record<string, unknown>>): Map<string, OccurrenceMark> {
  return new Map(rows.map((r) => [String(r.schedule), { lastMs: Number(r.last_ms), ...(r.last_run_ms === null || r.last_run_ms === undefined ? {} : { lastRunMs: Number(r.last_run_ms) }) }]));
}

export const forgetStatement = (p: Param) => `DELETE FROM ${MARK_TABLE} WHERE ns = ${p(1)} AND schedule = ${p(2)}`;
