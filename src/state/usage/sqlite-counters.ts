/**
 * Leases and counters in the SQLite file, on a connection of their own. A lease is taken in a
 * `BEGIN IMMEDIATE` transaction: it holds the database's write lock from its first statement, so a
 * count and the insert that depends on it cannot interleave with another process's (which waits up to
 * the busy timeout). A record's three rows are one upsert in one transaction. The connection is its own
 * because a transaction belongs to a connection: on the Keyv connection, the conversation store's
 * statements would land inside ours. In this process, calls take turns on it.
 */
import sqlite3 from 'sqlite3';
import { guarded } from '../backends/backend.js';
import { KeyedSerializer } from '../keyed-serializer.js';
import type { CounterStore } from './counter-store.js';
import { addStatement, LEASE_TABLE, pruneStatement, rankedRows, splitTotals, sqliteParam as p, topStatement, totalsStatement, usageSchema } from './sql-counters.js';

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

  return {
    acquire: (holder, leaseId, max, nowMs, expiresAtMs) =>
      run('lease', () =>
        immediate(conn, async () => {
          await conn.run(`DELETE FROM ${LEASE_TABLE} WHERE ns = ?1 AND holder = ?2 AND expires_at <= ?3`, [ns, holder, nowMs]);
          const [row] = await conn.all(`SELECT count(*) AS n FROM ${LEASE_TABLE} WHERE ns = ?1 AND holder = ?2`, [ns, holder]);
          const held = Number(row?.n ?? 0);
          if (held >= max) return { ok: false as const, held };
          await conn.run(`INSERT INTO ${LEASE_TABLE} (ns, holder, lease_id, expires_at) VALUES (?1, ?2, ?3, ?4)`, [ns, holder, leaseId, expiresAtMs]);
          return { ok: true as const, held: held + 1 };
        }),
      ),
    release: (holder, leaseId) =>
      run('release', () => conn.exclusive(() => conn.run(`DELETE FROM ${LEASE_TABLE} WHERE ns = ?1 AND holder = ?2 AND lease_id = ?3`, [ns, holder, leaseId]))),
    held: (holder, nowMs) =>
      run('read', async () => {
        const [row] = await read(`SELECT count(*) AS n FROM ${LEASE_TABLE} WHERE ns = ?1 AND holder = ?2 AND expires_at > ?3`, [ns, holder, nowMs]);
        return Number(row?.n ?? 0);
      }),
    add: (key, delta) =>
      run('count', () =>
        immediate(conn, async () => {
          const { sql, params } = addStatement(p, ns, key, delta);
          return splitTotals(await conn.all(sql, params));
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
