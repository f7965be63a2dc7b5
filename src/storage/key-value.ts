/**
 * The key-value memory family: what every backend folder's `openKeyValue` returns, and what
 * conversations, guild settings, waiting turns, member memory, schedules and the run journal are built
 * on (src/state/). Keyv covers single records (get/set); it has no append and no compare-and-swap, and
 * read-modify-write appends from two processes lose messages. So each backend also implements an
 * append-only log per thread with the adapter's own atomic operation (a Redis list push, an INSERT of
 * a fresh key in the Keyv SQL table), and conversations live in those logs.
 */
import type Keyv from 'keyv';

/** What a backend folder says its driver is: its kind, and whatever handles it shares (see `native`). */
export interface NativeShape {
  readonly kind: string;
}

/** One raw entry of a log and the backend's handle on it. */
export interface LogEntry {
  ref: string;
  raw: string;
}

/**
 * A storage backend: Keyv for single records plus an atomic append-only log per thread. `N` is its
 * driver as its folder declares it; the registry's `Backend` is this over every registered kind.
 */
export interface KeyValueBackend<N extends NativeShape = NativeShape> {
  readonly kind: N['kind'];
  /** Where the data lives, safe to print (no password). */
  readonly where: string;
  /** Keyv over the same adapter, with `throwOnErrors`; keys are used exactly as given (no prefixing). */
  readonly keyv: Keyv;
  /**
   * The driver under the backend, shared with Keyv (closing the backend closes it), for the families
   * its own folder builds on it (usage counters, schedule claims): what Keyv cannot give, atomic
   * counters, scripts and transactions. Each folder declares its shape (SQLite gives the file rather
   * than the connection: a store that opens transactions needs a connection of its own).
   */
  readonly native: N;
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
