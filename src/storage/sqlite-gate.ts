/**
 * One writer at a time per SQLite file in this process, waiting in JavaScript rather than on a thread.
 *
 * node-sqlite3 runs every statement on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says
 * more), and a statement that finds the file's write lock taken waits on its thread, in SQLite's busy
 * handler. The bot holds several connections to its one file (Keyv's, the usage counters', the
 * schedule claims', the indexes'): a handful of writes waiting at once fill the pool, and the
 * connection holding the lock then has no thread left to run its COMMIT on. Everything stalls until
 * the busy timeout and fails with SQLITE_BUSY; twenty questions asked at the same minute waited
 * 16-50 s for their model call. Writes that take turns here first reach the pool one at a time, so the
 * only lock they can wait for is another process's. Reads need no turn: in WAL mode (every file the
 * project opens) a reader never waits for a writer.
 *
 * The gate is always the last thing taken (a connection's own queue first, then the gate), and its
 * holder runs statements on its own connection only, so two callers can never wait for each other.
 */
import path from 'node:path';
import { KeyedSerializer } from './keyed-serializer.js';

export interface WriteGate {
  /** Run `write` when no other write to this file, from this process, is in progress. */
  write<T>(write: () => Promise<T>): Promise<T>;
}

/** This process's writers, one at a time per file (keyed by its absolute path). */
const writers = new KeyedSerializer();

/** The gate of `file`, shared by every connection of this process to it; none for a private in-memory database. */
export function writeGateFor(file: string): WriteGate | undefined {
  if (file === ':memory:' || file === '') return undefined;
  const key = path.resolve(file);
  return { write: (write) => writers.run(key, write) };
}

/** A statement that only reads (a SELECT, or a PRAGMA that reads a table's shape); anything else takes a turn. */
export function onlyReads(sql: string): boolean {
  return /^\s*(SELECT\b|PRAGMA\s+table_info\b)/i.test(sql);
}
