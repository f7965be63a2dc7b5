/**
 * What a backend folder (src/storage/<kind>/) declares and implements. Its `declaration.ts` says, with
 * no driver loaded, which kind it is, which URL schemes name it, what it supports (config and the scale
 * checks ask this through the registry), where a URL of it points, and how to load its implementation;
 * its `index.ts` is that implementation: one opener per store family. The registry (registry.ts) lists
 * the declarations and is the only module that names a kind; a new backend is a new folder plus its
 * line there.
 */
import type { KeyValueBackend, NativeShape, OpenOptions } from './key-value.js';
import type { IdentifyLock } from './identify-lock.js';
import type { OccurrenceClaims } from './occurrence-claims.js';
import type { IndexOpenOptions, SearchIndex, SearchIndexOptions } from './search-index.js';
import type { ThreadStore } from './thread-store.js';
import type { UsageStoreOptions, UsageStores } from './usage-store.js';

/** Where a storage URL points, as the backend's declaration reads it. */
export interface TargetShape {
  readonly kind: string;
}

/** What a backend can be used for beyond the key-value memory, which every backend holds. */
export interface BackendSupports {
  /**
   * Processes on several machines can share it, which SHARDS needs (the shards share threads, rules and
   * limits through it); otherwise why not, for the message that refuses SHARDS.
   */
  readonly sharing: true | { why: string };
  /** It can hold the shards' identify lock, which spaces logins across every host of the bot. */
  readonly identifyLock: boolean;
  /**
   * It can hold a knowledge index and past threads, which need full-text search (its SQL dialect's own:
   * SQLite FTS5, PostgreSQL text search); otherwise why not (Redis has none).
   */
  readonly knowledge: true | { why: string };
}

/** A backend folder's declaration: `T` is where its URLs point, `N` the driver its key-value backend exposes. */
export interface BackendDeclaration<T extends TargetShape = TargetShape, N extends NativeShape = NativeShape> {
  readonly kind: T['kind'];
  /** Its name in messages ("SQLite", "Redis"). */
  readonly label: string;
  /** The URL schemes that name it, lower case. */
  readonly schemes: readonly string[];
  /** How its URLs begin, as messages list them ("redis://", "rediss://"). */
  readonly spelled: readonly string[];
  /** A URL of it, for messages ("redis://host:6379"). */
  readonly example: string;
  readonly supports: BackendSupports;
  /** Where `url` (one of its schemes) points; `setting` names the variable in an error about it. */
  target(url: string, baseDir: string, setting: string): T;
  /** The folders on this machine its data lives in (a sandboxed MCP server must not see them); none for a server. */
  folders(target: T): string[];
  /** Its implementation, imported on demand: a process using one backend never loads another's driver. */
  load(): Promise<BackendModule<T, N>>;
}

/**
 * A backend's implementation: one opener per store family it holds. The registry hands each family
 * opener the key-value backend this same module opened, with its driver (`native`) as it declared it.
 */
export interface BackendModule<T extends TargetShape = TargetShape, N extends NativeShape = NativeShape> {
  /** Key-value memory: Keyv records plus an atomic append-only log per thread. */
  openKeyValue(target: T, options: OpenOptions): Promise<KeyValueBackend<N>>;
  /** Usage counters and claims, and the hourly run window, on the key-value backend's own driver. */
  openUsage(backend: KeyValueBackend<N>, options: UsageStoreOptions): Promise<UsageStores>;
  /** The exactly-once claims of scheduled occurrences under `namespace`, on the key-value backend's own driver. */
  openOccurrenceClaims(backend: KeyValueBackend<N>, namespace: string): Promise<OccurrenceClaims>;
  /** The knowledge index with its vectors: present exactly when the declaration supports `knowledge`. */
  openSearchIndex?(target: T, options: SearchIndexOptions): Promise<SearchIndex>;
  /** The past-thread index: present exactly when the declaration supports `knowledge`. */
  openThreadStore?(target: T, options: IndexOpenOptions): Promise<ThreadStore>;
  /** The shards' identify lock for bot `name`: present exactly when the declaration supports `identifyLock`. */
  openIdentifyLock?(target: T, name: string): Promise<IdentifyLock>;
}
