/**
 * One PostgreSQL transaction on a client of its own from the pool: BEGIN, an optional advisory lock,
 * the work, COMMIT; ROLLBACK when the work throws; the client back to the pool either way. The usage
 * claims, the knowledge index and the thread index all write this way.
 */
import type pg from 'pg';

/**
 * A transaction-scoped advisory lock taken first, so two processes deciding on the same rows take
 * turns. The hash is part of the lock's identity: each caller keeps the one it has always used, or an
 * old and a new process would both "hold" the lock during a rolling deploy.
 */
export interface AdvisoryLock {
  key: string;
  /** `hashtext` (32 bits) or `hashtextextended(key, 0)` (64 bits). */
  hash: 'hashtext' | 'hashtextextended';
}

const LOCK_STATEMENTS: Record<AdvisoryLock['hash'], string> = {
  hashtext: 'SELECT pg_advisory_xact_lock(hashtext($1))',
  hashtextextended: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
};

/** Run `work` in one transaction on a client of `pool`, after taking `lock` when given. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, lock?: AdvisoryLock): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (lock) await client.query(LOCK_STATEMENTS[lock.hash], [lock.key]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
