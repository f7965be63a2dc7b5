/**
 * The log's statements in SQLite (see ../sql/log-backend.ts). A log's rows are found by key prefix:
 * SQLite compares keys bytewise, so a key range uses the primary key index.
 */
import type { SqlStatements } from '../sql/log-backend.js';

/** Statements for `table` (already a safe identifier, as the Keyv adapter sanitizes it). */
export function sqliteLogStatements(table: string): SqlStatements {
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
