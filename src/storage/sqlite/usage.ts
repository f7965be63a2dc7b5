/**
 * The usage limiter's stores in the SQLite file, on a connection of their own (a transaction belongs to
 * a connection: on Keyv's, the conversation store's statements would land inside the claims').
 */
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { KeyValueBackend } from '../key-value.js';
import { runWindowOver, whenReady, windowOptions } from '../run-window.js';
import { WINDOW_TABLE } from '../sql/usage-statements.js';
import { SqliteConnection } from '../sqlite-connection.js';
import { guarded } from '../storage-failure.js';
import type { UsageStoreOptions, UsageStores } from '../usage-store.js';
import { sqliteCounters } from './counters.js';
import type { SqliteNative } from './types.js';

/** The counters and window on a connection of their own to `backend`'s file, their tables created if needed. */
export async function openSqliteUsage(backend: KeyValueBackend<SqliteNative>, options: UsageStoreOptions): Promise<UsageStores> {
  const { file, busyMs } = backend.native;
  const conn = await guarded('sqlite', backend.where, 'usage connection', () => SqliteConnection.open(file, { busyMs, synchronousNormal: true }));
  try {
    const counters = await sqliteCounters(conn, options.namespace, backend.where);
    // The library wraps its upsert in a savepoint on the connection it is given; taking turns with our
    // own transactions on that connection keeps the two from nesting. When its statement fails, the
    // savepoint's transaction stays open: rolled back here, or every later claim on the connection fails.
    const exclusive = <T>(work: () => Promise<T>) =>
      conn.exclusive(async (db) => {
        try {
          return await work();
        } catch (error) {
          await db.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    const base = windowOptions(options.namespace, options.windowSeconds);
    const limiter = await guarded('sqlite', backend.where, 'usage setup', () =>
      whenReady((ready) => new RateLimiterSQLite({ ...base, storeClient: conn.db, storeType: 'sqlite3', tableName: WINDOW_TABLE, clearExpiredByTimeout: true }, ready)));
    const window = runWindowOver(limiter, exclusive);
    return {
      counters,
      window,
      close: () => {
        window.stop();
        return conn.close();
      },
    };
  } catch (error) {
    await conn.close().catch(() => undefined);
    throw error;
  }
}
