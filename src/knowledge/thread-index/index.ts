/**
 * Past-thread search: open the thread index a URL names (the knowledge base's, in any backend that can
 * hold a full-text index: SQLite, PostgreSQL, or `memory:`, a private in-memory SQLite database).
 * Opening is real: it connects and creates the tables, so a wrong URL or a dead server is a clear
 * StorageError at start-up.
 */
import { openThreadStore } from '../../storage/open.js';
import { checkPrefix, DEFAULT_PREFIX } from '../../storage/search-index.js';
import { threadIndexOver, type ThreadIndexOptions } from './thread-search.js';
import type { ThreadIndex } from './types.js';

export type { ThreadExchange, ThreadHit, ThreadIndex, ThreadSearchOptions } from './types.js';
export { exchangeText, type ExchangeMessage } from './exchange-text.js';

export interface OpenThreadIndexOptions extends ThreadIndexOptions {
  /** A relative SQLite path is taken from here. */
  baseDir: string;
  /** Table-name prefix (default `kb_`, beside the knowledge base's tables); tests use their own. */
  prefix?: string;
  timeouts?: { connectMs?: number; queryMs?: number; busyMs?: number };
  /** Trouble outside any call (a PostgreSQL connection dropped while idle). */
  onBackgroundError?: (message: string) => void;
}

/** Open (and create if needed) the thread index at `url`. Throws StorageError when it cannot. */
export async function openThreadIndex(url: string, options: OpenThreadIndexOptions): Promise<ThreadIndex> {
  const prefix = checkPrefix(options.prefix ?? DEFAULT_PREFIX);
  const store = await openThreadStore(url, options.baseDir, {
    prefix,
    busyMs: options.timeouts?.busyMs ?? 3_000,
    connectMs: options.timeouts?.connectMs ?? 5_000,
    queryMs: options.timeouts?.queryMs ?? 30_000,
    onBackgroundError: options.onBackgroundError ?? ((message) => console.warn(`[threads] ${message}`)),
  });
  return threadIndexOver(store, options);
}
