/** The PostgreSQL backend's shapes: the server a URL names, and the pool its key-value backend shares. */
import type pg from 'pg';

/** Where a URL of this backend points. */
export interface PostgresTarget {
  readonly kind: 'postgres';
  readonly url: string;
}

/** The pool Keyv's adapter queries through (its own: see keyv-adapter.ts). */
export interface PostgresNative {
  readonly kind: 'postgres';
  readonly pool: pg.Pool;
}
