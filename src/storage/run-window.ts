/**
 * Runs per hour, counted by rate-limiter-flexible: a fixed window per member that opens with their first
 * run and lasts an hour. The library increments atomically in each store (a Lua script on Redis, one
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` on PostgreSQL and SQLite, a Map in memory), so two
 * requests racing for the last run get different counts and only one is admitted. It is built with a
 * huge point budget and never refuses by itself: the caller compares the count with the member's limit,
 * which differs per server. The library reads the system clock (Date.now), not an injected one. This is
 * the part every backend shares; each folder's usage.ts builds the library's store for its driver.
 */
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { lostCreateRace } from './postgres-schema.js';

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

// Never reached: the limiter must count, not decide (limits are per server and checked by the caller).
const UNLIMITED_POINTS = 2_000_000_000;

/** The options every store's limiter is built with, for `namespace`; `durationSeconds` is 3600 except in tests. */
export function windowOptions(namespace: string, durationSeconds = 3_600): { points: number; duration: number; keyPrefix: string } {
  return { points: UNLIMITED_POINTS, duration: durationSeconds, keyPrefix: `${namespace}:runs` };
}

/**
 * The window over a store's limiter (each backend folder builds its own: RateLimiterMemory, ...Redis,
 * ...Postgres, ...SQLite). `exclusive` runs each call alone where the store needs it (SQLite).
 */
export function runWindowOver(limiter: RateLimiterAbstract, exclusive: <T>(work: () => Promise<T>) => Promise<T> = (work) => work()): RunWindow {
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
export async function whenReady<T>(make: (ready: (error?: unknown) => void) => T): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let limiter!: T;
    const error = await new Promise<unknown>((resolve) => {
      limiter = make((error?: unknown) => resolve(error));
    });
    if (!error) return limiter;
    if (attempt >= 3 || !(lostCreateRace(error) || String((error as { code?: unknown }).code) === 'SQLITE_BUSY')) throw error;
  }
}
