/**
 * The few SQL statements the log needs, per dialect. A log's rows are found by key prefix: SQLite
 * compares keys bytewise, so a key range uses the primary key index; PostgreSQL compares by the
 * database collation, which may ignore punctuation, so it matches with LIKE on a pattern-ops index
 * and sorts with the "C" collation.
 */

/** The statements of one dialect. */
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

/** Statements for `table` (already a safe identifier, as the Keyv adapters sanitize it). */
export function sqlStatements(dialect: 'sqlite' | 'postgres', table: string): SqlStatements {
  if (dialect === 'sqlite') {
    // `?1`-style numbered parameters bind by position in node-sqlite3.
    const inLog = 'key > ?1 AND key < ?2';
    return {
      // WAL lets readers go on while another process writes; FULL makes every committed append durable.
      setup: ['PRAGMA journal_mode=WAL', 'PRAGMA synchronous=FULL'],
      // ':' sorts just before ';', so every "<log>:<seq>" key lies strictly between the two bounds.
      logRange: (log) => [`${log}:`, `${log};`],
      lastKey: `SELECT key FROM ${table} WHERE ${inLog} ORDER BY key DESC LIMIT 1`,
      insertNew: `INSERT INTO ${table} (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING RETURNING key`,
      readLog: `SELECT key, value FROM ${table} WHERE ${inLog} ORDER BY key`,
      replaceIf: `UPDATE ${table} SET value = ?1 WHERE key = ?2 AND value = ?3 RETURNING key`,
      removeAll: `DELETE FROM ${table} WHERE ${inLog}`,
      removeUpTo: `DELETE FROM ${table} WHERE ${inLog} AND key <= ?3`,
    };
  }
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
