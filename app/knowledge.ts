/**
 * The knowledge base as the bot uses it: opened from `config.knowledge` (the KEYV_URL database, or
 * KNOWLEDGE_URL; off with Redis and no KNOWLEDGE_URL), with the cached "has documents" answer the tool
 * policy asks before every step, the loaders `/kb add` uses (Discord's CDN, read_url's fetcher), and,
 * with EMBEDDING_MODEL, the background embedding job. The base itself (its PDF and Word reader, its
 * meaning search) is opened by openConfiguredKnowledge, as the terminal opens it.
 */
import type { Config } from '../src/config.js';
import { createAttachmentLoader } from '../src/discord/files/attachment-document.js';
import type { KnowledgeServices } from '../src/discord/services.js';
import { createDocumentPresence, forgettingOnChange, type DocumentPresence } from '../src/knowledge/document-presence.js';
import { documentFromUrl, openConfiguredKnowledge, startEmbeddingSync } from '../src/knowledge/index.js';
import type { Logger } from '../src/logger.js';
import type { ToolboxOptions } from '../tools/index.js';

/** Test-only knobs; nothing here is read from the environment. */
export interface KnowledgeOverrides {
  /** The fake Discord's CDN origin, standing in for cdn.discordapp.com and media.discordapp.net. */
  cdnOrigins?: readonly string[];
  /** How long "this server has documents" is trusted (default 30 s). */
  presenceTtlMs?: number;
  /** How often `/kb add` edits its reply with progress (default 2 s). */
  progressEveryMs?: number;
  /** The background embedding job's wait between rounds (default 5 min). */
  embeddingIdleMs?: number;
}

export interface AppKnowledge {
  services: KnowledgeServices;
  presence: DocumentPresence;
  close(): Promise<void>;
}

/** Open the knowledge base, or undefined when it is off. Throws StorageError when it cannot be opened. */
export async function openAppKnowledge(
  config: Pick<Config, 'knowledge' | 'tools'>,
  logger: Logger,
  options: KnowledgeOverrides & { readUrl?: ToolboxOptions['readUrl'] } = {},
): Promise<AppKnowledge | undefined> {
  const { url, maxFileBytes, maxUploadBytes } = config.knowledge;
  if (!url) {
    logger.warn('the knowledge base is off: KEYV_URL is Redis and KNOWLEDGE_URL is not set (Redis has no full-text search)');
    return undefined;
  }
  const where = { knowledge: url.replace(/:[^:@/]*@/, ':***@') };
  // The builder `npm run ask` and `npm run kb` use too: one wiring of caps, PDF reader and meaning search.
  const opened = await openConfiguredKnowledge(config.knowledge, { baseDir: process.cwd(), logger: (event) => logger[event.level](where, event.message) });
  // Passages without a vector of the model (a changed EMBEDDING_MODEL, a server that was down) are embedded in the background.
  const sync = opened.meaning && startEmbeddingSync(opened.meaning, { idleMs: options.embeddingIdleMs, log: (level, message) => logger[level](where, message) });
  const presence = createDocumentPresence(opened, { ttlMs: options.presenceTtlMs });
  return {
    presence,
    services: {
      base: forgettingOnChange(opened, presence),
      fromAttachment: createAttachmentLoader({ maxFileBytes, maxUploadBytes, cdnOrigins: options.cdnOrigins }),
      fromUrl: (target, signal) =>
        documentFromUrl(target, {
          userAgent: config.tools.userAgent,
          maxFileBytes,
          maxUploadBytes,
          allowLoopbackForTests: options.readUrl?.allowLoopbackForTests,
          lookup: options.readUrl?.lookup,
          signal,
        }),
      progressEveryMs: options.progressEveryMs ?? 2_000,
    },
    close: async () => {
      await sync?.stop();
      await opened.close();
    },
  };
}
