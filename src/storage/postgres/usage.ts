/** The usage limiter's stores on the key-value backend's PostgreSQL pool: tables of their own beside Keyv's. */
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { KeyValueBackend } from '../key-value.js';
import { runWindowOver, whenReady, windowOptions } from '../run-window.js';
import { WINDOW_TABLE } from '../sql/usage-statements.js';
import { guarded } from '../storage-failure.js';
import type { UsageStoreOptions, UsageStores } from '../usage-store.js';
import { postgresCounters } from './counters.js';
import type { PostgresNative } from './types.js';

/** The counters and window over `backend`'s pool, their tables created if needed (nothing of their own to close). */
export async function openPostgresUsage(backend: KeyValueBackend<PostgresNative>, options: UsageStoreOptions): Promise<UsageStores> {
  const { pool } = backend.native;
  const counters = await postgresCounters(pool, options.namespace, backend.where);
  const base = windowOptions(options.namespace, options.windowSeconds);
  const limiter = await guarded('postgres', backend.where, 'usage setup', () =>
    whenReady((ready) => new RateLimiterPostgres({ ...base, storeClient: pool, storeType: 'pool', tableName: WINDOW_TABLE }, ready)));
  return { counters, window: runWindowOver(limiter), close: async () => {} };
}
