/**
 * Claims and counters in the SQLite file, on a connection of their own. A claim is taken in a
 * `BEGIN IMMEDIATE` transaction: it holds the database's write lock from its first statement, so the
 * reads it decides on and the insert that depends on them cannot interleave with another process's
 * (which waits up to the busy timeout). A record's three rows and its claim's usage are one transaction. The connection is its own
 * because a transaction belongs to a connection: on the Keyv connection, the conversation store's
 * statements would land inside ours. In this process, calls take turns on it.
 */
import sqlite3 from 'sqlite3';
import { guarded } from '../backends/backend.js';
import { KeyedSerializer } from '../keyed-serializer.js';
import { claimVerdict, type CounterStore } from './counter-store.js';
import {
  addStatement, claimUsedStatement, committedFrom, committedParams, committedStatement, deleteClaimStatement, expireClaimsStatement, insertClaimStatement, pruneStatement,
  rankedRows, releaseSlotStatement, renewClaimsStatement, splitTotals, sqliteParam as p, topStatement, totalsStatement, usageSchema,
} from './sql-counters.js';

/** A promise-returning view of one sqlite3 connection. */
export interface SqliteConnection {
  readonly db: sqlite3.Database;
  all(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  run(sql: string, params?: unknown[]): Promise<void>;
  /** Run `work` alone on this connection (no other call of ours interleaves). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Open another connection to `file`, waiting up to `busyMs` for other processes' locks. */
export async function openSqliteConnection(file: string, busyMs: number): Promise<SqliteConnection> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
  });
  db.configure('busyTimeout', busyMs);
  const ready = () => new Promise<void>((resolve, reject) => db.run('PRAGMA synchronous=NORMAL', (error) => (error ? reject(error) : resolve())));
  // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, which for usage
  // counters is a few requests' tokens, not worth an fsync on every lease, record and release.
  await ready();
  const serial = new KeyedSerializer();
  const all = (sql: string, params: unknown[] = []) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as Array<Record<string, unknown>>))));
  const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
  return {
    db,
    all,
    run,
    exclusive: (work) => serial.run('connection', work),
    close: () => new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Run `work` in an IMMEDIATE transaction, rolling back if it throws. */
async function immediate<T>(conn: SqliteConnection, work: () => Promise<T>): Promise<T> {
  return conn.exclusive(async () => {
    await conn.run('BEGIN IMMEDIATE');
    try {
      const result = await work();
      await conn.run('COMMIT');
      return result;
    } catch (error) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** Create the tables (if needed) and build the store over `conn`. */
export async function sqliteCounters(conn: SqliteConnection, ns: string, where: string): Promise<CounterStore> {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('sqlite', where, `usage ${action}`, call);
  await run('setup', () => conn.exclusive(async () => {
    for (const statement of usageSchema('INTEGER')) await conn.run(statement);
  }));
  const read = (sql: string, params: unknown[]) => conn.exclusive(() => conn.all(sql, params));

  const committedSql = committedStatement(p, (param) => param);
  const write = (statement: { sql: string; params: unknown[] }) => conn.run(statement.sql, statement.params);

  return {
    claim: (spec, rules) =>
      run('lease', () =>
        immediate(conn, async () => {
          await write(expireClaimsStatement(p, ns, spec.scope, rules.nowMs));
          const [row] = await conn.all(committedSql, committedParams(ns, rules.day, spec.scope, spec.userId, '', rules.nowMs));
          const verdict = claimVerdict(committedFrom(row), spec, rules);
          if (verdict.ok) await write(insertClaimStatement(p, ns, spec, verdict.reserved, rules.expiresAtMs));
          return verdict;
        }),
      ),
    unclaim: (_scope, id) => run('release', () => conn.exclusive(() => write(deleteClaimStatement(p, ns, id)))),
    renew: async (claims, expiresAtMs) => {
      if (claims.length === 0) return;
      await run('heartbeat', () => conn.exclusive(() => write(renewClaimsStatement(p, ns, claims.map((c) => c.id), expiresAtMs))));
    },
    releaseSlot: (slot, owner) =>
      run('release', () =>
        conn.exclusive(async () => {
          const statement = releaseSlotStatement(p, ns, slot, owner);
          const rows = await conn.all(`${statement.sql} RETURNING claim_id`, statement.params);
          return rows.length;
        }),
      ),
    committed: (day, scope, userId, claimId, nowMs) =>
      run('read', async () => {
        const [row] = await read(committedSql, committedParams(ns, day, scope, userId, claimId, nowMs));
        return committedFrom(row);
      }),
    add: (key, delta, claimId) =>
      run('count', () =>
        immediate(conn, async () => {
          const { sql, params } = addStatement(p, ns, key, delta);
          const totals = splitTotals(await conn.all(sql, params));
          if (claimId !== undefined) await write(claimUsedStatement(p, ns, claimId, delta.totalTokens));
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
        await conn.exclusive(() => conn.run(sql, params));
      }),
  };
}
