/**
 * The tables and statements the SQLite and PostgreSQL counter stores share. Counters are real integer
 * columns (not JSON in the Keyv table), so an increment is `SET x = x + excluded.x` inside the database
 * and never a read-modify-write in the process. One record's member, channel and server rows are one
 * multi-row upsert: all three change together or none does.
 */
import { TOTAL_FIELDS, totalsFrom, type CounterKey } from './counter-store.js';
import type { UsageTotals } from './types.js';

/** Where the limiter keeps its rows, beside the Keyv table. */
export const USAGE_TABLE = 'threadwise_usage';
export const LEASE_TABLE = 'threadwise_usage_leases';
/** The table rate-limiter-flexible keeps its hourly windows in. */
export const WINDOW_TABLE = 'threadwise_run_windows';

const COLUMNS = { inputTokens: 'input_tokens', outputTokens: 'output_tokens', totalTokens: 'total_tokens', costNanoUsd: 'cost_nano_usd', runs: 'runs' } as const;
const COUNTER_COLUMNS = TOTAL_FIELDS.map((f) => COLUMNS[f]);

/** Row kinds: member, channel, and the server's own row. */
const KIND = { member: 'm', channel: 'c', guild: 'g' } as const;

/** CREATE statements; `big` is the dialect's 64-bit integer type. */
export function usageSchema(big: 'INTEGER' | 'BIGINT'): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${USAGE_TABLE} (ns TEXT NOT NULL, day TEXT NOT NULL, scope TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, ` +
      `${COUNTER_COLUMNS.map((c) => `${c} ${big} NOT NULL DEFAULT 0`).join(', ')}, PRIMARY KEY (ns, day, scope, kind, id))`,
    `CREATE TABLE IF NOT EXISTS ${LEASE_TABLE} (ns TEXT NOT NULL, holder TEXT NOT NULL, lease_id TEXT NOT NULL, expires_at ${big} NOT NULL, PRIMARY KEY (ns, holder, lease_id))`,
  ];
}

/** Positional parameter `n` (1-based) in the dialect. */
type Param = (n: number) => string;
export const sqliteParam: Param = (n) => `?${n}`;
export const postgresParam: Param = (n) => `$${n}`;

/** The three-row upsert of one record, returning every row it touched, and its parameters. */
export function addStatement(p: Param, ns: string, key: CounterKey, delta: UsageTotals): { sql: string; params: unknown[] } {
  const values = COUNTER_COLUMNS.map((_, i) => p(6 + i)).join(', ');
  const row = (kind: string, idParam: string) => `(${p(1)}, ${p(2)}, ${p(3)}, '${kind}', ${idParam}, ${values})`;
  const sql =
    `INSERT INTO ${USAGE_TABLE} AS u (ns, day, scope, kind, id, ${COUNTER_COLUMNS.join(', ')}) VALUES ` +
    `${row(KIND.member, p(4))}, ${row(KIND.channel, p(5))}, ${row(KIND.guild, "''")} ` +
    `ON CONFLICT (ns, day, scope, kind, id) DO UPDATE SET ${COUNTER_COLUMNS.map((c) => `${c} = u.${c} + excluded.${c}`).join(', ')} ` +
    `RETURNING kind, ${COUNTER_COLUMNS.join(', ')}`;
  return { sql, params: [ns, key.day, key.scope, key.userId, key.channelId, ...TOTAL_FIELDS.map((f) => delta[f])] };
}

/** Member and server totals from the rows an add or a totals query returned. */
export function splitTotals(rows: Array<Record<string, unknown>>): { member: UsageTotals; guild: UsageTotals } {
  return {
    member: totalsFrom(rows.find((r) => r.kind === KIND.member), COLUMNS),
    guild: totalsFrom(rows.find((r) => r.kind === KIND.guild), COLUMNS),
  };
}

/** The member's row (when `userId` is given) and the server's row of a day. */
export function totalsStatement(p: Param, ns: string, day: string, scope: string, userId?: string): { sql: string; params: unknown[] } {
  return {
    sql:
      `SELECT kind, ${COUNTER_COLUMNS.join(', ')} FROM ${USAGE_TABLE} WHERE ns = ${p(1)} AND day = ${p(2)} AND scope = ${p(3)} ` +
      `AND ((kind = '${KIND.guild}' AND id = '') OR (kind = '${KIND.member}' AND id = ${p(4)}))`,
    params: [ns, day, scope, userId ?? ''],
  };
}

/** The top rows of one kind on a day, by tokens. */
export function topStatement(p: Param, ns: string, day: string, scope: string, kind: 'member' | 'channel', limit: number): { sql: string; params: unknown[] } {
  return {
    sql:
      `SELECT id, ${COUNTER_COLUMNS.join(', ')} FROM ${USAGE_TABLE} WHERE ns = ${p(1)} AND day = ${p(2)} AND scope = ${p(3)} AND kind = ${p(4)} ` +
      `ORDER BY total_tokens DESC, id LIMIT ${Math.max(0, Math.floor(limit))}`,
    params: [ns, day, scope, KIND[kind]],
  };
}

/** A ranking's rows as ids and totals. */
export function rankedRows(rows: Array<Record<string, unknown>>): Array<{ id: string; totals: UsageTotals }> {
  return rows.map((r) => ({ id: String(r.id), totals: totalsFrom(r, COLUMNS) }));
}

/** Forget a namespace's counter rows older than a day. */
export function pruneStatement(p: Param, ns: string, beforeDay: string): { sql: string; params: unknown[] } {
  return { sql: `DELETE FROM ${USAGE_TABLE} WHERE ns = ${p(1)} AND day < ${p(2)}`, params: [ns, beforeDay] };
}
