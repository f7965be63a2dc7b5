/**
 * Past-thread search: open the thread index a URL names (the knowledge base's: `sqlite://`, `postgres://`
 * or `memory:`, a private in-memory SQLite database). Opening is real: it connects and creates the
 * tables, so a wrong URL or a dead server is a clear StorageError at start-up.
 */
import { StorageError } from '../../errors.js';
import { redactUrl } from '../../storage/storage-url.js';
import { parseStorageUrl } from '../../storage/registry.js';
import { checkPrefix, DEFAULT_PREFIX } from '../search-index.js';
import { threadIndexOver, type ThreadIndexOptions } from './thread-search.js';
import type { ThreadIndex, ThreadStore } from './types.js';

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
  const target = parseStorageUrl(url, options.baseDir, 'KNOWLEDGE_URL');
  let store: ThreadStore;
  switch (target?.kind) {
    case 'memory':
    case 'sqlite':
      store = await (await import('./sqlite-threads.js')).openSqliteThreads(target.kind === 'memory' ? ':memory:' : target.file, { prefix, busyMs: options.timeouts?.busyMs ?? 3_000 });
      break;
    case 'postgres':
      store = await (await import('./postgres-threads.js')).openPostgresThreads(target.url, redactUrl(target.url), {
        prefix,
        connectMs: options.timeouts?.connectMs ?? 5_000,
        queryMs: options.timeouts?.queryMs ?? 30_000,
        onBackgroundError: options.onBackgroundError ?? ((message) => console.warn(`[threads] ${message}`)),
      });
      break;
    default:
      throw new StorageError(`Past-thread search needs a full-text index: "${redactUrl(url)}" is not a sqlite://, postgres:// or memory: URL.`);
  }
  return threadIndexOver(store, options);
}
