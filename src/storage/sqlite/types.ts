/** The SQLite backend's shapes: the file a URL names, and what its key-value backend shares. */

/** Where a URL of this backend points. */
export interface SqliteTarget {
  readonly kind: 'sqlite';
  /** The file's absolute path, or ':memory:'. */
  readonly file: string;
}

/** The file rather than a connection: a store that opens transactions needs a connection of its own. */
export interface SqliteNative {
  readonly kind: 'sqlite';
  readonly file: string;
  readonly busyMs: number;
}
