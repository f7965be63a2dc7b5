/** The SQLite key-value backend: a file (created with its folder on first use), in WAL mode, over @keyv/sqlite. */
import KeyvSqlite from '@keyv/sqlite';
import type { KeyValueBackend, OpenOptions } from '../key-value.js';
import { guarded } from '../storage-failure.js';
import { sqlBackend, type Query } from '../sql/log-backend.js';
import { makeFolderFor } from '../sqlite-connection.js';
import { onlyReads, writeGateFor } from '../sqlite-gate.js';
import type { SqliteNative } from './types.js';
import { sqliteLogStatements } from './log-statements.js';

/** Open (creating the directory and file if needed) a SQLite database in WAL mode. */
export async function openSqliteBackend(file: string, options: OpenOptions): Promise<KeyValueBackend<SqliteNative>> {
  if (file !== ':memory:') await guarded('sqlite', file, 'creating the data folder', () => makeFolderFor(file));
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: options.timeouts.busyMs });
  const where = file;
  const query = gatedWrites(adapter, file);
  const statements = sqliteLogStatements(adapter.opts.table ?? 'keyv');
  await guarded('sqlite', where, 'opening the database', async () => {
    for (const statement of statements.setup) await query(statement);
  });
  const native: SqliteNative = { kind: 'sqlite', file, busyMs: options.timeouts.busyMs };
  return sqlBackend('sqlite', where, adapter, query, statements, native);
}

/**
 * The adapter's writes wait for the file's write gate (see sqlite-gate.ts), Keyv's own (`set`, `delete`:
 * its methods all go through `adapter.query`) and the log's alike; reads go straight on.
 */
function gatedWrites(adapter: KeyvSqlite, file: string): Query {
  const raw = adapter.query as Query;
  const gate = writeGateFor(file);
  if (!gate) return raw;
  const query: Query = (sql, ...params) => (onlyReads(sql) ? raw(sql, ...params) : gate.write(() => raw(sql, ...params)));
  adapter.query = query as typeof adapter.query;
  return query;
}
