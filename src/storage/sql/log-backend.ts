/**
 * What the SQL backends (SQLite, PostgreSQL) share: logs live in the adapter's own table, one
 * row per entry under `<log>:<12-digit sequence>`. An append inserts a fresh key with
 * `ON CONFLICT DO NOTHING RETURNING`; if another process took that sequence number first, nothing is
 * overwritten and the append retries with the next one. Each append is one autocommitted statement, so
 * it is all there after a crash or not at all.
 */
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import { StorageError } from '../../errors.js';
import type { KeyValueBackend, LogEntry, NativeShape } from '../key-value.js';
import { guarded } from '../storage-failure.js';

/** A Keyv SQL adapter's `query`: statement and positional parameters in, rows out. */
export type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** The few statements the log needs, in the backend's dialect (its folder's log-statements.ts). */
export interface SqlStatements {
  /** Run once when the backend opens. */
  setup: string[];
  /** Parameters that select one log's rows; the statements below start with them. */
  logRange(log: string): string[];
  lastKey: string;
  insertNew: string;
  readLog: string;
  replaceIf: string;
  removeAll: string;
  removeUpTo: string;
}

const SEQ_DIGITS = 12;
const MAX_APPEND_ATTEMPTS = 50;

/** A Backend over a Keyv SQL adapter's table; `keyv` wraps that same adapter. */
export function sqlBackend<N extends NativeShape>(
  kind: N['kind'],
  where: string,
  adapter: KeyvStoreAdapter & { disconnect(): Promise<void> },
  query: Query,
  sql: SqlStatements,
  native: N,
): KeyValueBackend<N> {
  const keyv = new Keyv({ store: adapter, throwOnErrors: true, namespace: undefined, useKeyPrefix: false });
  const run = <T>(action: string, call: () => Promise<T>) => guarded(kind, where, action, call);
  const range = (log: string) => sql.logRange(log);

  return {
    kind,
    where,
    keyv,
    native,
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
