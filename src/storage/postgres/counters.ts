/**
 * Claims and counters in PostgreSQL. Taking a claim is a transaction that first takes a transaction-
 * scoped advisory lock on the scope (the server, or all DMs), so two processes deciding on the same
 * budgets take turns (each later statement sees what the previous holder of the lock committed). A
 * record is one statement: a multi-row upsert (PostgreSQL locks each row it updates and adds to its
 * latest committed value, so concurrent increments never lose one another) with the claim's usage in a
 * data-modifying WITH. A deadlock between two records (it should not happen: rows are always written
 * member, channel, server) is retried.
 */
import type pg from 'pg';
import { createAll } from '../postgres-schema.js';
import { inTransaction } from '../postgres-transaction.js';
import { guarded } from '../storage-failure.js';
import { claimVerdict, type CounterStore } from '../usage-store.js';
import {
  addStatement, CLAIM_TABLE, committedFrom, committedParams, committedStatement, deleteClaimStatement, expireClaimsStatement, insertClaimStatement, postgresParam as p,
  pruneStatement, rankedRows, releaseSlotStatement, renewClaimsStatement, splitTotals, topStatement, totalsStatement, usageSchema,
} from '../sql/usage-statements.js';

const RETRYABLE = new Set(['40P01', '40001']);

/** Create the tables (if needed) and build the store over the backend's pool. */
export async function postgresCounters(pool: pg.Pool, ns: string, where: string): Promise<CounterStore> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('postgres', where, `usage ${action}`, call);
  await run('setup', () => createAll((statement) => pool.query(statement), usageSchema('BIGINT')));
  const rows = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Array<Record<string, unknown>>;

  const committedSql = committedStatement(p, (param, type) => `${param}::${type}`);
  const exec = (statement: { sql: string; params: unknown[] }) => pool.query(statement.sql, statement.params);

  return {
    claim: (spec, rules) =>
      run('lease', () =>
        inTransaction(pool, async (client) => {
          const expire = expireClaimsStatement(p, ns, spec.scope, rules.nowMs);
          await client.query(expire.sql, expire.params);
          const { rows: [row] } = await client.query(committedSql, committedParams(ns, rules.day, spec.scope, spec.userId, '', rules.nowMs));
          const verdict = claimVerdict(committedFrom(row), spec, rules);
          if (verdict.ok) {
            const insert = insertClaimStatement(p, ns, spec, verdict.reserved, rules.expiresAtMs);
            await client.query(insert.sql, insert.params);
          }
          return verdict;
        }, { key: `${ns}:claims:${spec.scope}`, hash: 'hashtextextended' }),
      ),
    unclaim: (_scope, id) =>
      run('release', async () => {
        await exec(deleteClaimStatement(p, ns, id));
      }),
    renew: async (claims, expiresAtMs) => {
      if (claims.length === 0) return;
      await run('heartbeat', () => exec(renewClaimsStatement(p, ns, claims.map((c) => c.id), expiresAtMs)));
    },
    releaseSlot: (slot, owner) => run('release', async () => (await exec(releaseSlotStatement(p, ns, slot, owner))).rowCount ?? 0),
    committed: (day, scope, userId, claimId, nowMs) =>
      run('read', async () => committedFrom((await pool.query(committedSql, committedParams(ns, day, scope, userId, claimId, nowMs))).rows[0])),
    add: (key, delta, claimId) =>
      run('count', async () => {
        const upsert = addStatement(p, ns, key, delta);
        // The claim's usage rides along in the same statement: $1 is the namespace, $8 the total tokens.
        const { sql, params } =
          claimId === undefined
            ? upsert
            : { sql: `WITH settled AS (UPDATE ${CLAIM_TABLE} SET used = used + $8::bigint WHERE ns = $1::text AND claim_id = $11::text) ${upsert.sql}`, params: [...upsert.params, claimId] };
        for (let attempt = 1; ; attempt++) {
          try {
            return splitTotals(await rows(sql, params));
          } catch (error) {
            if (attempt >= 5 || !RETRYABLE.has(String((error as { code?: unknown }).code))) throw error;
          }
        }
      }),
    totals: (day, scope, userId) =>
      run('read', async () => {
        const { sql, params } = totalsStatement(p, ns, day, scope, userId);
        return splitTotals(await rows(sql, params));
      }),
    top: (day, scope, kind, limit) =>
      run('read', async () => {
        const { sql, params } = topStatement(p, ns, day, scope, kind, limit);
        return rankedRows(await rows(sql, params));
      }),
    prune: (beforeDay) =>
      run('prune', async () => {
        const { sql, params } = pruneStatement(p, ns, beforeDay);
        await pool.query(sql, params);
      }),
  };
}
