/**
 * The tables and statements the SQL counter stores (SQLite, PostgreSQL) share, in either dialect: the
 * caller passes its parameter style and its 64-bit integer type. Counters are real integer
 * columns (not JSON in the Keyv table), so an increment is `SET x = x + excluded.x` inside the database
 * and never a read-modify-write in the process. One record's member, channel and server rows are one
 * multi-row upsert: all three change together or none does.
 */
import { TOTAL_FIELDS, totalsFrom, type ClaimSpec, type Committed, type CounterKey, type UsageTotals } from '../usage-store.js';

/** Where the limiter keeps its rows, beside the Keyv table. */
export const USAGE_TABLE = 'threadwise_usage';
/** One row per admitted run: its concurrency lease and the tokens set aside for it (see ../usage-store.ts). */
export const CLAIM_TABLE = 'threadwise_usage_claims';
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
    `CREATE TABLE IF NOT EXISTS ${CLAIM_TABLE} (ns TEXT NOT NULL, claim_id TEXT NOT NULL, scope TEXT NOT NULL, user_id TEXT NOT NULL, leased INTEGER NOT NULL, ` +
      `reserved ${big} NOT NULL, used ${big} NOT NULL DEFAULT 0, owner TEXT NOT NULL, slot TEXT NOT NULL, expires_at ${big} NOT NULL, PRIMARY KEY (ns, claim_id))`,
    `CREATE INDEX IF NOT EXISTS ${CLAIM_TABLE}_scope ON ${CLAIM_TABLE} (ns, scope, user_id)`,
    `CREATE INDEX IF NOT EXISTS ${CLAIM_TABLE}_slot ON ${CLAIM_TABLE} (ns, slot)`,
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

/** What a live claim still holds: its reservation less what it has used, never below 0. */
const HELD = `COALESCE(SUM(CASE WHEN reserved > used THEN reserved - used ELSE 0 END), 0)`;

/**
 * The budgets one run sees before a model call, in one statement: the member's and the server's tokens
 * today, what live claims hold (the member's, the server's, the run's own) and the member's leased runs.
 * Parameters: ns, day, scope, user, claim id, now.
 */
export function committedStatement(p: Param, cast: (param: string, type: 'text' | 'bigint') => string): string {
  const [ns, day, scope, user, claim, now] = [cast(p(1), 'text'), cast(p(2), 'text'), cast(p(3), 'text'), cast(p(4), 'text'), cast(p(5), 'text'), cast(p(6), 'bigint')];
  const used = (kind: string, id: string) => `COALESCE((SELECT total_tokens FROM ${USAGE_TABLE} WHERE ns = ${ns} AND day = ${day} AND scope = ${scope} AND kind = '${kind}' AND id = ${id}), 0)`;
  const live = `FROM ${CLAIM_TABLE} WHERE ns = ${ns} AND scope = ${scope} AND expires_at > ${now}`;
  return (
    `SELECT ${used(KIND.member, user)} AS member_used, ${used(KIND.guild, "''")} AS guild_used, ` +
    `(SELECT ${HELD} ${live} AND user_id = ${user}) AS member_reserved, (SELECT ${HELD} ${live}) AS guild_reserved, ` +
    `(SELECT ${HELD} ${live} AND claim_id = ${claim}) AS own_reserved, (SELECT count(*) ${live} AND user_id = ${user} AND leased = 1) AS member_runs`
  );
}

/** The parameters of `committedStatement`. */
export function committedParams(ns: string, day: string, scope: string, userId: string, claimId: string, nowMs: number): unknown[] {
  return [ns, day, scope, userId, claimId, nowMs];
}

/** The numbers of a `committedStatement` row (drivers return sums and BIGINTs as strings). */
export function committedFrom(row: Record<string, unknown> | undefined): Committed {
  const read = (name: string) => Number(row?.[name] ?? 0) || 0;
  return {
    memberUsed: read('member_used'),
    guildUsed: read('guild_used'),
    memberReserved: read('member_reserved'),
    guildReserved: read('guild_reserved'),
    ownReserved: read('own_reserved'),
    memberRuns: read('member_runs'),
  };
}

/** Drop the expired claims of a scope (before counting its live ones). */
export function expireClaimsStatement(p: Param, ns: string, scope: string, nowMs: number): { sql: string; params: unknown[] } {
  return { sql: `DELETE FROM ${CLAIM_TABLE} WHERE ns = ${p(1)} AND scope = ${p(2)} AND expires_at <= ${p(3)}`, params: [ns, scope, nowMs] };
}

/** Store a claim that was found to fit. */
export function insertClaimStatement(p: Param, ns: string, spec: ClaimSpec, reserved: number, expiresAtMs: number): { sql: string; params: unknown[] } {
  return {
    sql: `INSERT INTO ${CLAIM_TABLE} (ns, claim_id, scope, user_id, leased, reserved, used, owner, slot, expires_at) VALUES (${[1, 2, 3, 4, 5, 6].map(p).join(', ')}, 0, ${p(7)}, ${p(8)}, ${p(9)})`,
    params: [ns, spec.id, spec.scope, spec.userId, spec.leased ? 1 : 0, reserved, spec.owner, spec.slot, expiresAtMs],
  };
}

/** Drop one claim. */
export function deleteClaimStatement(p: Param, ns: string, id: string): { sql: string; params: unknown[] } {
  return { sql: `DELETE FROM ${CLAIM_TABLE} WHERE ns = ${p(1)} AND claim_id = ${p(2)}`, params: [ns, id] };
}

/** Push the expiry of some claims (one heartbeat). */
export function renewClaimsStatement(p: Param, ns: string, ids: readonly string[], expiresAtMs: number): { sql: string; params: unknown[] } {
  return { sql: `UPDATE ${CLAIM_TABLE} SET expires_at = ${p(2)} WHERE ns = ${p(1)} AND claim_id IN (${ids.map((_, i) => p(3 + i)).join(', ')})`, params: [ns, expiresAtMs, ...ids] };
}

/** Drop a slot's claims that another owner holds. */
export function releaseSlotStatement(p: Param, ns: string, slot: string, owner: string): { sql: string; params: unknown[] } {
  return { sql: `DELETE FROM ${CLAIM_TABLE} WHERE ns = ${p(1)} AND slot = ${p(2)} AND owner <> ${p(3)}`, params: [ns, slot, owner] };
}

/** Add what a model call used to its claim (settling the reservation). */
export function claimUsedStatement(p: Param, ns: string, id: string, tokens: number): { sql: string; params: unknown[] } {
  return { sql: `UPDATE ${CLAIM_TABLE} SET used = used + ${p(3)} WHERE ns = ${p(1)} AND claim_id = ${p(2)}`, params: [ns, id, tokens] };
}
