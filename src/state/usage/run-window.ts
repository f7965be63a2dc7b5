/**
 * Runs per hour, counted by rate-limiter-flexible: a fixed window per member that opens with their first
 * run and lasts an hour. The library increments atomically in each store (a Lua script on Redis, one
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` on PostgreSQL and SQLite, a Map in memory), so two
 * requests racing for the last run get different counts and only one is admitted. It is built with a
 * huge point budget and never refuses by itself: the caller compares the count with the member's limit,
 * which differs per server. The library reads the system clock (Date.now), not an injected one.
 */
import type { RedisClientType } from '@keyv/redis';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterSQLite, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { SqliteConnection } from '../../storage/sqlite-connection.js';
import { WINDOW_TABLE } from './sql-counters.js';
import { lostCreateRace } from '../../storage/postgres-schema.js';

/** Runs in a member's current window and when the window closes. */
export interface WindowCount {
  count: number;
  resetsAt: Date;
}

/** One member's hourly window. Every method may throw (the caller turns it into a StorageError). */
export interface RunWindow {
  /** Count one run; the count includes it. */
  hit(key: string): Promise<WindowCount>;
  /** The current count without adding, or null when no window is open. */
  peek(key: string): Promise<WindowCount | null>;
  /**
   * Stop the library's background work. Its SQLite store deletes expired windows every five minutes on
   * a timer of its own; left running after the connection closes, the timer's failure is an unhandled
   * rejection that ends a process still running (a test run, the bench).
   */
  stop(): void;
}

/** Where the window lives. */
export type WindowStore =
  | { kind: 'memory' }
  | { kind: 'sqlite'; conn: SqliteConnection }
  | { kind: 'redis'; client: RedisClientType }
  | { kind: 'postgres'; pool: pg.Pool };

// Never reached: the limiter must count, not decide (limits are per server and checked by the caller).
const UNLIMITED_POINTS = 2_000_000_000;

/** Open the window store for `namespace`; `durationSeconds` is 3600 except in tests. */
export async function openRunWindow(store: WindowStore, namespace: string, durationSeconds = 3_600): Promise<RunWindow> {
  const base = { points: UNLIMITED_POINTS, duration: durationSeconds, keyPrefix: `${namespace}:runs` };
  let limiter: RateLimiterAbstract;
  let exclusive = <T>(work: () => Promise<T>) => work();
  switch (store.kind) {
    case 'memory':
      limiter = new RateLimiterMemory(base);
      break;
    case 'redis':
      limiter = new RateLimiterRedis({ ...base, storeClient: store.client, useRedisPackage: true });
      break;
    case 'postgres':
      limiter = await whenReady((ready) => new RateLimiterPostgres({ ...base, storeClient: store.pool, storeType: 'pool', tableName: WINDOW_TABLE }, ready));
      break;
    case 'sqlite': {
      // The library wraps its upsert in a savepoint on the connection it is given; taking turns with our
      // own transactions on that connection keeps the two from nesting. When its statement fails, the
      // savepoint's transaction stays open: rolled back here, or every later claim on the connection fails.
      const conn = store.conn;
      exclusive = (work) =>
        conn.exclusive(async (db) => {
          try {
            return await work();
          } catch (error) {
            await db.run('ROLLBACK').catch(() => undefined);
            throw error;
          }
        });
      limiter = await whenReady((ready) =>
        new RateLimiterSQLite({ ...base, storeClient: conn.db, storeType: 'sqlite3', tableName: WINDOW_TABLE, clearExpiredByTimeout: true }, ready),
      );
      break;
    }
  }
  const counted = (res: RateLimiterRes): WindowCount => ({
    count: res.consumedPoints,
    resetsAt: new Date(Date.now() + Math.max(0, res.msBeforeNext)),
  });
  return {
    hit: async (key) => counted(await exclusive(() => consumeOrThrow(limiter, key))),
    peek: async (key) => {
      const res = await exclusive(() => limiter.get(key));
      return res && res.consumedPoints > 0 ? counted(res) : null;
    },
    // The library keeps no public way to stop that timer; its id is on the instance.
    stop: () => clearTimeout((limiter as { _clearExpiredTimeoutId?: NodeJS.Timeout })._clearExpiredTimeoutId),
  };
}

/** The library rejects with a RateLimiterRes when points run out (never here) and with an Error on failure. */
async function consumeOrThrow(limiter: RateLimiterAbstract, key: string): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, 1);
  } catch (error) {
    if (error instanceof Error) throw error;
    throw new Error(`the run window refused unexpectedly: ${JSON.stringify(error)}`);
  }
}

/** Construct a store limiter and wait until its table exists; a concurrent creator's duplicate is fine. */
async function whenReady<T>(make: (ready: (error?: unknown) => void) => T): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let limiter!: T;
    const error = await new Promise<unknown>((resolve) => {
      limiter = make((error?: unknown) => resolve(error));
    });
    if (!error) return limiter;
    if (attempt >= 3 || !(lostCreateRace(error) || String((error as { code?: unknown }).code) === 'SQLITE_BUSY')) throw error;
  }
}
