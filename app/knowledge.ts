/**
 * The knowledge base as the bot uses it: opened from `config.knowledge` (the KEYV_URL database, or
 * KNOWLEDGE_URL; off with Redis and no KNOWLEDGE_URL), with the cached "has documents" answer the tool
 * policy asks before every step, and the loaders `/kb add` uses (Discord's CDN, read_url's fetcher).
 */
import type { Config } from '../src/config.js';
import { createAttachmentLoader } from '../src/discord/files/attachment-document.js';
import type { KnowledgeServices } from '../src/discord/services.js';
import { createDocumentPresence, forgettingOnChange, type DocumentPresence } from '../src/knowledge/document-presence.js';
import { documentFromUrl, openKnowledgeBase } from '../src/knowledge/index.js';
import type { Logger } from '../src/logger.js';
import type { ToolboxOptions } from '../tools/index.js';

/** Test-only knobs; nothing here is read from the environment. */
export interface KnowledgeOverrides {
  /** The fake Discord's CDN origin, standing in for cdn.discordapp.com and media.discordapp.net. */
  cdnOrigins?: readonly string[];
  /** How long "this server has documents" is trusted (default 30 s). */
  presenceTtlMs?: number;
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
  const { url, maxFileBytes, maxBytes } = config.knowledge;
  if (!url) {
    logger.warn('the knowledge base is off: KEYV_URL is Redis and KNOWLEDGE_URL is not set (Redis has no full-text search)');
    return undefined;
  }
  const opened = await openKnowledgeBase(url, {
    baseDir: process.cwd(),
    limits: { maxFileBytes, maxBytes },
    logger: (event) => logger[event.level]({ knowledge: url.replace(/:[^:@/]*@/, ':***@') }, event.message),
  });
  const presence = createDocumentPresence(opened, { ttlMs: options.presenceTtlMs });
  return {
    presence,
    services: {
      base: forgettingOnChange(opened, presence),
      fromAttachment: createAttachmentLoader({ maxFileBytes, cdnOrigins: options.cdnOrigins }),
      fromUrl: (target, signal) =>
        documentFromUrl(target, {
          userAgent: config.tools.userAgent,
          maxFileBytes,
          allowLoopbackForTests: options.readUrl?.allowLoopbackForTests,
          lookup: options.readUrl?.lookup,
          signal,
        }),
    },
    close: () => opened.close(),
  };
}
