/**
 * One sqlite3 connection with promises and an operation queue: the only way the project's own code
 * (the knowledge index, the usage counters and their run window) opens SQLite; thread memory goes
 * through @keyv/sqlite, which holds its own. A connection is shared by every call of its owner, and a
 * transaction on it would otherwise swallow the statements of a concurrent call (or fail on a nested
 * BEGIN), so each call, each `exclusive` piece of work and each whole transaction runs alone, in order.
 * Writes, `exclusive` work and transactions then wait for the file's write gate (sqlite-gate.ts), so a
 * connection never waits for another of this process on a thread of the pool.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { onlyReads, writeGateFor, type WriteGate } from './sqlite-gate.js';

/** Statements on a connection (inside `exclusive` or a transaction: straight on it, not queued). */
export interface SqlRunner {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ lastID: number; changes: number }>;
}

/** How a connection is opened. */
export interface SqliteOpenOptions {
  /** How long to wait for another process's lock before SQLITE_BUSY. */
  busyMs: number;
  /**
   * `PRAGMA synchronous=NORMAL`: in WAL mode it never corrupts the file, and a power cut may lose only
   * the last commits (the usage counters take that for not paying an fsync on every write).
   */
  synchronousNormal?: boolean;
  /**
   * Create the file's folder first and put the file in WAL mode: for a store that may be the first to
   * open the file (the knowledge and thread indexes; the Keyv backend does the same through its adapter).
   * Stores that open the file after the Keyv backend (usage counters, schedule claims) leave both alone.
   */
  create?: boolean;
}

/** Make the folder of a SQLite file (nothing for ':memory:'). */
export async function makeFolderFor(file: string): Promise<void> {
  if (file !== ':memory:') await fs.mkdir(path.dirname(file), { recursive: true });
}

export class SqliteConnection implements SqlRunner {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly direct: SqlRunner;

  /** The raw handle, for a library that needs one (the run window's rate limiter); use it inside `exclusive`. */
  readonly db: sqlite3.Database;

  private constructor(
    db: sqlite3.Database,
    private readonly gate: WriteGate | undefined,
  ) {
    this.db = db;
    this.direct = {
      all: <T>(sql: string, params: unknown[] = []) =>
        new Promise<T[]>((resolve, reject) => db.all<T>(sql, params, (error, rows) => (error ? reject(error) : resolve(rows)))),
      run: (sql, params = []) =>
        new Promise((resolve, reject) =>
          db.run(sql, params, function done(this: sqlite3.RunResult, error: Error | null) {
            if (error) reject(error);
            else resolve({ lastID: this.lastID, changes: this.changes });
          })),
    };
  }

  /** Open `file` (':memory:' for a private in-memory database). */
  static async open(file: string, options: SqliteOpenOptions): Promise<SqliteConnection> {
    if (options.create) await makeFolderFor(file);
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened: sqlite3.Database = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
    });
    db.configure('busyTimeout', options.busyMs);
    const connection = new SqliteConnection(db, writeGateFor(file));
    try {
      // WAL lets readers go on while another connection writes; a private in-memory database has no journal to change.
      if (options.create && file !== ':memory:') await connection.all('PRAGMA journal_mode = WAL');
      if (options.synchronousNormal) await connection.direct.run('PRAGMA synchronous=NORMAL');
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    const read = () => this.direct.all<T>(sql, params);
    return onlyReads(sql) ? this.alone(read) : this.writing(read);
  }

  run(sql: string, params?: unknown[]): Promise<{ lastID: number; changes: number }> {
    const run = () => this.direct.run(sql, params);
    return onlyReads(sql) ? this.alone(run) : this.writing(run);
  }

  /** Several statements at once (the schema). */
  exec(sql: string): Promise<void> {
    return this.writing(() => new Promise<void>((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(error) : resolve()))));
  }

  /** Run `work` alone on this connection: no other call of ours interleaves with its statements. It may write. */
  exclusive<T>(work: (db: SqlRunner) => Promise<T>): Promise<T> {
    return this.writing(() => work(this.direct));
  }

  /**
   * Run `work` in one write transaction, taking the write lock at BEGIN (IMMEDIATE) so that the reads
   * it decides on and the writes that depend on them cannot interleave with another process's (which
   * waits up to the busy timeout). Rolled back if `work` throws.
   */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.writing(async () => {
      await this.direct.run('BEGIN IMMEDIATE');
      try {
        const result = await work(this.direct);
        await this.direct.run('COMMIT');
        return result;
      } catch (error) {
        await this.direct.run('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  close(): Promise<void> {
    return this.alone(() => new Promise<void>((resolve, reject) => this.db.close((error) => (error ? reject(error) : resolve()))));
  }

  /** Alone on this connection, then (the gate taken last) alone among this process's writers to the file. */
  private writing<T>(operation: () => Promise<T>): Promise<T> {
    const { gate } = this;
    return gate ? this.alone(() => gate.write(operation)) : this.alone(operation);
  }

  private alone<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation, operation);
    this.queue = result.catch(() => {});
    return result;
  }
}
