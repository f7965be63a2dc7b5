/** The PostgreSQL key-value backend, over @keyv/postgres with a pool of its own (see keyv-adapter.ts). */
import type { KeyValueBackend, OpenOptions } from '../key-value.js';
import { createAll } from '../postgres-schema.js';
import { sqlBackend, type Query } from '../sql/log-backend.js';
import { guarded, storageFailure } from '../storage-failure.js';
import { redactUrl } from '../storage-url.js';
import type { PostgresNative } from './types.js';
import { OwnPoolKeyvPostgres } from './keyv-adapter.js';
import { postgresLogStatements } from './log-statements.js';

/** Connect to PostgreSQL, with bounded connection and query times. */
export async function openPostgresBackend(url: string, options: OpenOptions): Promise<KeyValueBackend<PostgresNative>> {
  const adapter = new OwnPoolKeyvPostgres({
    uri: url,
    connectionTimeoutMillis: options.timeouts.connectMs,
    query_timeout: options.timeouts.commandMs,
    max: 10,
  });
  const where = redactUrl(url);
  adapter.on('error', (error: unknown) => options.onBackgroundError(`PostgreSQL at ${where}: ${(error as Error)?.message ?? error}`));
  const query = ((sql: string, params?: unknown[]) => adapter.query(sql, params)) as Query;
  const table = `${adapter.opts.schema ?? 'public'}.${adapter.opts.table ?? 'keyv'}`;
  const statements = postgresLogStatements(table);
  await guarded('postgres', where, 'connecting', () => createAll(query, statements.setup));
  const pool = adapter.pool;
  if (!pool) throw storageFailure('postgres', where, 'connecting', new Error('the adapter has no connection pool'));
  const native: PostgresNative = { kind: 'postgres', pool };
  return sqlBackend('postgres', where, adapter, query, statements, native);
}

