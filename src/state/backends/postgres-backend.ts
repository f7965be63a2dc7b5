/** The PostgreSQL backend, over @keyv/postgres with a pool of its own (see postgres-adapter.ts). */
import { type Backend, type OpenOptions } from './backend.js';
import { guarded, storageFailure } from '../../storage/storage-failure.js';
import { redactUrl } from '../../storage/storage-url.js';
import { OwnPoolKeyvPostgres } from './postgres-adapter.js';
import { sqlBackend, type Query } from './sql-backend.js';
import { sqlStatements } from './sql-statements.js';
import { createAll } from '../../storage/postgres-schema.js';

/** Connect to PostgreSQL, with bounded connection and query times. */
export async function openPostgresBackend(url: string, options: OpenOptions): Promise<Backend> {
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
  const statements = sqlStatements('postgres', table);
  await guarded('postgres', where, 'connecting', () => createAll(query, statements.setup));
  const pool = adapter.pool;
  if (!pool) throw storageFailure('postgres', where, 'connecting', new Error('the adapter has no connection pool'));
  return sqlBackend('postgres', where, adapter, query, statements, { kind: 'postgres', pool });
}

