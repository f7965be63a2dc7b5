/**
 * Claims and counters in the SQLite file, on a connection of their own. A claim is taken in a
 * `BEGIN IMMEDIATE` transaction: it holds the database's write lock from its first statement, so the
 * reads it decides on and the insert that depends on them cannot interleave with another process's
 * (which waits up to the busy timeout). A record's three rows and its claim's usage are one transaction. The connection is its own
 * because a transaction belongs to a connection: on the Keyv connection, the conversation store's
 * statements would land inside ours. In this process, calls take turns on it.
 */
import type { SqliteConnection, SqlRunner } from '../sqlite-connection.js';
import { guarded } from '../storage-failure.js';
import { claimVerdict, type CounterStore } from '../usage-store.js';
import {
  addStatement, claimUsedStatement, committedFrom, committedParams, committedStatement, deleteClaimStatement, expireClaimsStatement, insertClaimStatement, pruneStatement,
  rankedRows, releaseSlotStatement, renewClaimsStatement, splitTotals, sqliteParam as p, topStatement, totalsStatement, usageSchema,
} from '../sql/usage-statements.js';

/** Create the tables (if needed) and build the store over `conn`. */
export async function sqliteCounters(conn: SqliteConnection, ns: string, where: string): Promise<CounterStore> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('sqlite', where, `usage ${action}`, call);
  await run('setup', () => conn.exclusive(async (db) => {
    for (const statement of usageSchema('INTEGER')) await db.run(statement);
  }));
  const read = (sql: string, params: unknown[]) => conn.all(sql, params);

  const committedSql = committedStatement(p, (param) => param);
  const write = (db: SqlRunner, statement: { sql: string; params: unknown[] }) => db.run(statement.sql, statement.params);

  return {
    claim: (spec, rules) =>
      run('lease', () =>
        conn.transaction(async (tx) => {
          await write(tx, expireClaimsStatement(p, ns, spec.scope, rules.nowMs));
          const [row] = await tx.all(committedSql, committedParams(ns, rules.day, spec.scope, spec.userId, '', rules.nowMs));
          const verdict = claimVerdict(committedFrom(row), spec, rules);
          if (verdict.ok) await write(tx, insertClaimStatement(p, ns, spec, verdict.reserved, rules.expiresAtMs));
          return verdict;
        }),
      ),
    unclaim: (_scope, id) => run('release', async () => void (await write(conn, deleteClaimStatement(p, ns, id)))),
    renew: async (claims, expiresAtMs) => {
      if (claims.length === 0) return;
      await run('heartbeat', () => write(conn, renewClaimsStatement(p, ns, claims.map((c) => c.id), expiresAtMs)));
    },
    releaseSlot: (slot, owner) =>
      run('release', async () => {
        const statement = releaseSlotStatement(p, ns, slot, owner);
        const rows = await conn.all(`${statement.sql} RETURNING claim_id`, statement.params);
        return rows.length;
      }),
    committed: (day, scope, userId, claimId, nowMs) =>
      run('read', async () => {
        const [row] = await read(committedSql, committedParams(ns, day, scope, userId, claimId, nowMs));
        return committedFrom(row);
      }),
    add: (key, delta, claimId) =>
      run('count', () =>
        conn.transaction(async (tx) => {
          const { sql, params } = addStatement(p, ns, key, delta);
          const totals = splitTotals(await tx.all(sql, params));
          if (claimId !== undefined) await write(tx, claimUsedStatement(p, ns, claimId, delta.totalTokens));
          return totals;
        }),
      ),
    totals: (day, scope, userId) =>
      run('read', async () => {
        const { sql, params } = totalsStatement(p, ns, day, scope, userId);
        return splitTotals(await read(sql, params));
      }),
    top: (day, scope, kind, limit) =>
      run('read', async () => {
        const { sql, params } = topStatement(p, ns, day, scope, kind, limit);
        return rankedRows(await read(sql, params));
      }),
    prune: (beforeDay) =>
      run('prune', async () => {
        const { sql, params } = pruneStatement(p, ns, beforeDay);
        await conn.run(sql, params);
      }),
  };
}
