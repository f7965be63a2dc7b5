/**
 * One sqlite3 connection with promises and an operation queue. The connection is shared by every call
 * of the knowledge base, and a transaction on it would otherwise swallow the statements of a concurrent
 * call (or fail on a nested BEGIN), so each call and each whole transaction runs alone, in order.
 */
import sqlite3 from 'sqlite3';

/** Statements on a connection (inside a transaction: on that transaction). */
export interface SqlRunner {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ lastID: number; changes: number }>;
}

export class SqliteConnection implements SqlRunner {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly direct: SqlRunner;

  private constructor(private readonly db: sqlite3.Database) {
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

  /** Open `file` (':memory:' for a private in-memory database), waiting up to `busyMs` for other processes' locks. */
  static open(file: string, busyMs: number): Promise<SqliteConnection> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, (error) => {
        if (error) return reject(error);
        db.configure('busyTimeout', busyMs);
        resolve(new SqliteConnection(db));
      });
    });
  }

  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.alone(() => this.direct.all<T>(sql, params));
  }

  run(sql: string, params?: unknown[]): Promise<{ lastID: number; changes: number }> {
    return this.alone(() => this.direct.run(sql, params));
  }

  /** Several statements at once (the schema). */
  exec(sql: string): Promise<void> {
    return this.alone(() => new Promise<void>((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(error) : resolve()))));
  }

  /**
   * Run `work` in one write transaction, taking the write lock at BEGIN (IMMEDIATE) so that two
   * processes cannot both read the collection's size and then both add past its cap.
   */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.alone(async () => {
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

  private alone<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation, operation);
    this.queue = result.catch(() => {});
    return result;
  }
}
