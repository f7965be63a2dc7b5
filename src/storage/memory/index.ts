/** The in-memory backend's store families (see declaration.ts). */
import type { BackendModule } from '../backend-declaration.js';
import { memoryClaims } from './claims.js';
import type { MemoryNative, MemoryTarget } from './types.js';
import { openMemoryBackend } from './key-value.js';
import { openMemoryUsage } from './usage.js';

/** What `memory:` opens, loaded by its declaration on demand. */
export const memoryBackend: BackendModule<MemoryTarget, MemoryNative> = {
  openKeyValue: async () => openMemoryBackend(),
  openUsage: (_backend, options) => openMemoryUsage(options),
  openOccurrenceClaims: async () => memoryClaims(),
  // A private in-memory SQLite database: full-text search needs FTS5, which only a database has.
  openSearchIndex: async (_target, options) => (await import('../sqlite/search-index.js')).openSqliteIndex(':memory:', options),
  openThreadStore: async (_target, options) => (await import('../sqlite/threads.js')).openSqliteThreads(':memory:', options),
};
