/**
 * The log's statements in PostgreSQL (see ../sql/log-backend.ts). A log's rows are found by key
 * prefix: PostgreSQL compares by the database collation, which may ignore punctuation, so it matches
 * with LIKE on a pattern-ops index and sorts with the "C" collation.
 */
import type { SqlStatements } from '../sql/log-backend.js';

/** Statements for `table` (already a safe identifier, as the Keyv adapter sanitizes it). */
export function postgresLogStatements(table: string): SqlStatements {
  const inLog = 'key LIKE $1';
  const indexName = `${table.replace(/\W/g, '_')}_key_prefix`;
  return {
    // The adapter creates the table too, but without waiting; the index makes prefix LIKE use an index.
    setup: [
      `CREATE TABLE IF NOT EXISTS ${table}(key VARCHAR(255) PRIMARY KEY, value TEXT)`,
      `CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (key varchar_pattern_ops)`,
    ],
    logRange: (log) => [`${escapeLike(log)}:%`],
    lastKey: `SELECT key FROM ${table} WHERE ${inLog} ORDER BY key COLLATE "C" DESC LIMIT 1`,
    insertNew: `INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`,
    readLog: `SELECT key, value FROM ${table} WHERE ${inLog} ORDER BY key COLLATE "C"`,
    replaceIf: `UPDATE ${table} SET value = $1 WHERE key = $2 AND value = $3 RETURNING key`,
    removeAll: `DELETE FROM ${table} WHERE ${inLog}`,
    removeUpTo: `DELETE FROM ${table} WHERE ${inLog} AND key COLLATE "C" <= $2`,
  };
}

/** LIKE treats `%`, `_` and the escape character specially; thread ids may contain `_`. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
