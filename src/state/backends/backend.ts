/**
 * What a storage backend must provide. Keyv covers single records (get/set); it has no append and no
 * compare-and-swap, and read-modify-write appends from two processes lose messages. So each backend also
 * implements an append-only log per thread with the adapter's own atomic operation (a Redis list push,
 * an INSERT of a fresh key in the Keyv SQL table), and conversations live in those logs.
 */
import type Keyv from 'keyv';
import type { RedisClientType } from '@keyv/redis';
import type pg from 'pg';

/** Which storage a KEYV_URL chose. */
export type BackendKind = 'memory' | 'sqlite' | 'redis' | 'postgres';

/** One raw entry of a log and the backend's handle on it. */
export interface LogEntry {
  ref: string;
  raw: string;
}

/**
 * The driver under a backend, for stores that need what Keyv cannot give: atomic counters, scripts and
 * transactions (the usage limiter). SQLite gives the file rather than the connection: a store that opens
 * transactions needs a connection of its own, or another caller's statements would land inside them.
 */
export type NativeClient =
  | { kind: 'memory' }
  | { kind: 'sqlite'; file: string; busyMs: number }
  | { kind: 'redis'; client: RedisClientType; commandMs: number }
  | { kind: 'postgres'; pool: pg.Pool };

/** A storage backend: Keyv for single records plus an atomic append-only log per thread. */
export interface Backend {
  readonly kind: BackendKind;
  /** Where the data lives, safe to print (no password). */
  readonly where: string;
  /** Keyv over the same adapter, with `throwOnErrors`; keys are used exactly as given (no prefixing). */
  readonly keyv: Keyv;
  /** The underlying driver, shared with Keyv (closing the backend closes it). */
  readonly native: NativeClient;
  /**
   * Add one entry at the end of `log`. Atomic; a concurrent appender, in this or another process, can
   * never overwrite it. `ttlMs` is a hint: backends with native expiry restart the log's clock.
   */
  append(log: string, raw: string, ttlMs?: number): Promise<void>;
  /** The log's entries, oldest first. */
  read(log: string): Promise<LogEntry[]>;
  /** Replace `entry` with `raw` only if it still holds `entry.raw`; false when it changed or vanished. */
  replace(log: string, entry: LogEntry, raw: string): Promise<boolean>;
  /** Remove the whole log, or only the entries up to and including `upTo`, so later appends survive. */
  remove(log: string, upTo?: LogEntry): Promise<void>;
  close(): Promise<void>;
}

/** Failure bounds, so a dead or locked backend becomes an error instead of a hang. */
export interface BackendTimeouts {
  /** Connecting to a server (Redis, PostgreSQL). */
  connectMs: number;
  /** One command or query on a server. */
  commandMs: number;
  /** How long SQLite waits for another process's lock before giving up. */
  busyMs: number;
}

/** Used unless `createStorage` is given others. */
export const DEFAULT_TIMEOUTS: BackendTimeouts = { connectMs: 5_000, commandMs: 10_000, busyMs: 3_000 };

/** Options every backend opener receives. */
export interface OpenOptions {
  timeouts: BackendTimeouts;
  /** Called when the backend reports trouble outside any call (a dropped connection). */
  onBackgroundError: (message: string) => void;
}
