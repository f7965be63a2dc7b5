/**
 * The pool an index (knowledge, past threads) opens for itself: bounded connect and query times, and an
 * idle connection dropped by a server restart reported through `onError` instead of becoming an
 * unhandled 'error' that kills the process.
 */
import pg from 'pg';

/** A pool for one index at `url`, with the index's bounds; `onError` hears what goes wrong while it is idle. */
export function indexPool(url: string, bounds: { connectMs: number; queryMs: number }, onError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: bounds.connectMs, query_timeout: bounds.queryMs, max: 5 });
  pool.on('error', onError);
  return pool;
}
