/**
 * SQLite and PostgreSQL backends over the Keyv SQL adapters. Logs live in the adapter's own table, one
 * row per entry under `<log>:<12-digit sequence>`. An append inserts a fresh key with
 * `ON CONFLICT DO NOTHING RETURNING`; if another process took that sequence number first, nothing is
 * overwritten and the append retries with the next one. Each append is one autocommitted statement, so
 * it is all there after a crash or not at all.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Keyv from 'keyv';
import KeyvSqlite from '@keyv/sqlite';
import type KeyvPostgres from '@keyv/postgres';
import { StorageError } from '../../errors.js';
import { guarded, redactUrl, type Backend, type LogEntry, type OpenOptions } from './backend.js';
import { sqlStatements, type SqlStatements } from './sql-statements.js';
import { OwnPoolKeyvPostgres } from './postgres-adapter.js';

type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

const SEQ_DIGITS = 12;
const MAX_APPEND_ATTEMPTS = 50;

/** Open (creating the directory and file if needed) a SQLite database in WAL mode. */
export async function openSqliteBackend(file: string, options: OpenOptions): Promise<Backend> {
  if (file !== ':memory:') {
    await guarded('sqlite', file, 'creating the data folder', () => fs.mkdir(path.dirname(file), { recursive: true }));
  }
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: options.timeouts.busyMs });
  const where = file;
  const query = adapter.query as Query;
  const statements = sqlStatements('sqlite', adapter.opts.table ?? 'keyv');
  await guarded('sqlite', where, 'opening the database', async () => {
    for (const statement of statements.setup) await query(statement);
  });
  return sqlBackend('sqlite', where, adapter, query, statements);
}

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
  await guarded('postgres', where, 'connecting', async () => {
    for (const statement of statements.setup) {
      try {
        await query(statement);
      } catch (error) {
        // Two processes starting at once both create the table or index; the loser's error is harmless.
        if (!['23505', '42P07'].includes(String((error as { code?: unknown }).code))) throw error;
      }
    }
  });
  return sqlBackend('postgres', where, adapter, query, statements);
}

function sqlBackend(
  kind: 'sqlite' | 'postgres',
  where: string,
  adapter: KeyvSqlite | KeyvPostgres,
  query: Query,
  sql: SqlStatements,
): Backend {
  const keyv = new Keyv({ store: adapter, throwOnErrors: true, namespace: undefined, useKeyPrefix: false });
  const run = <T>(action: string, call: () => Promise<T>) => guarded(kind, where, action, call);
  const range = (log: string) => sql.logRange(log);

  return {
    kind,
    where,
    keyv,
    append: (log, raw) =>
      run('append', async () => {
        for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
          const [last] = await query(sql.lastKey, range(log));
          const seq = last ? Number(String(last.key).slice(log.length + 1)) + 1 : 1;
          const key = `${log}:${String(seq).padStart(SEQ_DIGITS, '0')}`;
          const inserted = await query(sql.insertNew, [key, raw]);
          if (inserted.length > 0) return;
        }
        throw new StorageError(
          `Storage append failed on ${kind} (${where}): ${MAX_APPEND_ATTEMPTS} other writes to the same thread got in first. Nothing was written; try again.`,
        );
      }),
    read: (log) =>
      run('read', async () => {
        const rows = await query(sql.readLog, range(log));
        return rows.map((row): LogEntry => ({ ref: String(row.key), raw: String(row.value) }));
      }),
    replace: (_log, entry, raw) =>
      run('replace', async () => (await query(sql.replaceIf, [raw, entry.ref, entry.raw])).length > 0),
    remove: (log, upTo) =>
      run('remove', async () => {
        if (upTo) await query(sql.removeUpTo, [...range(log), upTo.ref]);
        else await query(sql.removeAll, range(log));
      }),
    close: () => run('close', async () => adapter.disconnect()),
  };
}
