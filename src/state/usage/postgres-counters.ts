/**
 * Leases and counters in PostgreSQL. Taking a lease is a transaction that first takes a transaction-
 * scoped advisory lock on the holder, so two processes counting the same holder's leases take turns
 * (each later statement sees what the previous holder of the lock committed). A record is one
 * multi-row upsert: PostgreSQL locks each row it updates and adds to its latest committed value, so
 * concurrent increments never lose one another. A deadlock between two records (it should not happen:
 * rows are always written member, channel, server) is retried.
 */
import type pg from 'pg';
import { guarded } from '../backends/backend.js';
import type { CounterStore } from './counter-store.js';
import { addStatement, LEASE_TABLE, postgresParam as p, pruneStatement, rankedRows, splitTotals, topStatement, totalsStatement, usageSchema } from './sql-counters.js';

// One statement after the lock: drop expired leases, count the live ones, add ours if there is room.
// All parts see the same snapshot, which is current because the lock was taken by an earlier statement.
const TAKE = `WITH gone AS (DELETE FROM ${LEASE_TABLE} WHERE ns = $1::text AND holder = $2::text AND expires_at <= $3::bigint),
  live AS (SELECT count(*)::int AS n FROM ${LEASE_TABLE} WHERE ns = $1::text AND holder = $2::text AND expires_at > $3::bigint),
  taken AS (INSERT INTO ${LEASE_TABLE} (ns, holder, lease_id, expires_at) SELECT $1::text, $2::text, $4::text, $5::bigint FROM live WHERE n < $6::int RETURNING 1)
SELECT (SELECT n FROM live) AS n, (SELECT count(*)::int FROM taken) AS taken`;

const RETRYABLE = new Set(['40P01', '40001']);

/** Create the tables (if needed) and build the store over the backend's pool. */
export async function postgresCounters(pool: pg.Pool, ns: string, where: string): Promise<CounterStore> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('postgres', where, `usage ${action}`, call);
  await run('setup', async () => {
    for (const statement of usageSchema('BIGINT')) {
      try {
        await pool.query(statement);
      } catch (error) {
        // Two processes creating the same table at once: the loser's error means it exists.
        if (!['23505', '42P07'].includes(String((error as { code?: unknown }).code))) throw error;
      }
    }
  });
  const rows = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Array<Record<string, unknown>>;

  return {
    acquire: (holder, leaseId, max, nowMs, expiresAtMs) =>
      run('lease', async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${ns}:lease:${holder}`]);
          const { rows: [row] } = await client.query(TAKE, [ns, holder, nowMs, leaseId, expiresAtMs, max]);
          await client.query('COMMIT');
          const n = Number(row?.n ?? 0);
          return Number(row?.taken) === 1 ? { ok: true as const, held: n + 1 } : { ok: false as const, held: n };
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      }),
    release: (holder, leaseId) =>
      run('release', async () => {
        await pool.query(`DELETE FROM ${LEASE_TABLE} WHERE ns = $1 AND holder = $2 AND lease_id = $3`, [ns, holder, leaseId]);
      }),
    held: (holder, nowMs) =>
      run('read', async () => {
        const [row] = await rows(`SELECT count(*)::int AS n FROM ${LEASE_TABLE} WHERE ns = $1 AND holder = $2 AND expires_at > $3`, [ns, holder, nowMs]);
        return Number(row?.n ?? 0);
      }),
    add: (key, delta) =>
      run('count', async () => {
        const { sql, params } = addStatement(p, ns, key, delta);
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
