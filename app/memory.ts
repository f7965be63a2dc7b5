/**
 * Memory that outlives a thread, as the bot uses it: the member memory store (in the storage KEYV_URL
 * opened) and past-thread search, opened in the knowledge index's database (KNOWLEDGE_URL, else the
 * KEYV_URL database; off with Redis and no KNOWLEDGE_URL, like the knowledge base), with the cached
 * "this server has threads" answer the tool policy asks before every step.
 */
import type { Config } from '../src/config.js';
import { createDocumentPresence, type DocumentPresence } from '../src/knowledge/document-presence.js';
import { openThreadIndex, type ThreadIndex } from '../src/knowledge/thread-index/index.js';
import type { Logger } from '../src/logger.js';

export interface AppThreads {
  index: ThreadIndex;
  /** Whether a server has indexed threads, cached (see DocumentPresence): `search_threads` is offered only there. */
  presence: DocumentPresence;
  close(): Promise<void>;
}

/** Open past-thread search, or undefined when there is no full-text database. Throws StorageError when it cannot be opened. */
export async function openAppThreads(config: Pick<Config, 'knowledge' | 'storage'>, logger: Logger, options: { presenceTtlMs?: number } = {}): Promise<AppThreads | undefined> {
  const url = config.knowledge.url;
  if (!url) {
    logger.warn('past-thread search is off: KEYV_URL is Redis and KNOWLEDGE_URL is not set (Redis has no full-text search)');
    return undefined;
  }
  const days = config.storage.conversationTtlDays;
  const index = await openThreadIndex(url, {
    baseDir: process.cwd(),
    ...(days ? { ttlMs: days * 86_400_000 } : {}),
    onBackgroundError: (message) => logger.error(message),
  });
  const presence = createDocumentPresence({ hasDocuments: (guildId) => index.hasThreads(guildId) }, { ttlMs: options.presenceTtlMs });
  return { index, presence, close: () => index.close() };
}
