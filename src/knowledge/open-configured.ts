/**
 * The knowledge base as the configuration describes it, for every entry point: the bot
 * (app/knowledge.ts), `npm run ask` and `npm run kb` open it here. KNOWLEDGE_URL (or the KEYV_URL
 * database) says where it lives, KNOWLEDGE_MAX_* its caps, the reader's settings (parserOptionsFrom)
 * how PDF and Word files are read, and EMBEDDING_MODEL turns on meaning search. One builder, so the
 * terminal's `search_knowledge` finds by words and meaning what a thread's finds: a copy per entry
 * point is how the terminal once searched by words alone.
 */
import type { KnowledgeConfig } from '../config.js';
import { StorageError } from '../errors.js';
import { openAIEmbedder } from './embedding/openai-embedder.js';
import type { DocumentParserOptions } from './parse/document-parser.js';
import { openKnowledgeBase, type KnowledgeLogger } from './open-knowledge-base.js';
import type { KnowledgeBase } from './types.js';

/** Why there is no knowledge base, and what to set: KEYV_URL is Redis and KNOWLEDGE_URL is unset. */
export const KNOWLEDGE_OFF = 'KEYV_URL is a Redis URL, and Redis has no full-text search: set KNOWLEDGE_URL to sqlite://data/threadwise.sqlite or a postgres:// URL.';

/** What the entry point adds to the configuration: where it runs from, and where background trouble goes. */
export interface ConfiguredKnowledgeOptions {
  /** A relative SQLite path is taken from here (the project root under npm). */
  baseDir: string;
  /** Trouble outside any call (a PostgreSQL connection dropped while idle); default: stderr. */
  logger?: KnowledgeLogger;
}

/**
 * The document reader's options from the knowledge settings, the one place they are mapped: the
 * knowledge base's reader takes them, and so does read_url's PDF lane (src/core.ts), so a PDF at a URL
 * meets the pages, time, memory and inflate caps an added one does.
 */
export function parserOptionsFrom(settings: Pick<KnowledgeConfig, 'maxPages' | 'parseTimeoutMs' | 'parseMemoryMb' | 'maxPdfInflatedBytes' | 'maxPdfPageBytes'>): DocumentParserOptions {
  const { maxPages, parseTimeoutMs: timeoutMs, parseMemoryMb: maxMemoryMb, maxPdfInflatedBytes, maxPdfPageBytes } = settings;
  return { maxPages, timeoutMs, maxMemoryMb, maxPdfInflatedBytes, maxPdfPageBytes };
}

/**
 * Open the knowledge base `settings` describe, with its PDF and Word reader (started on the first
 * such file, closed with the knowledge base) and, with EMBEDDING_MODEL, its meaning search.
 * Throws StorageError when it cannot be opened, or when the configuration has none (KNOWLEDGE_OFF).
 */
export async function openConfiguredKnowledge(settings: KnowledgeConfig, options: ConfiguredKnowledgeOptions): Promise<KnowledgeBase> {
  const { url, maxFileBytes, maxBytes, maxUploadBytes, embedding } = settings;
  if (!url) throw new StorageError(KNOWLEDGE_OFF);
  return openKnowledgeBase(url, {
    baseDir: options.baseDir,
    limits: { maxFileBytes, maxBytes, maxUploadBytes },
    logger: options.logger,
    parserOptions: parserOptionsFrom(settings),
    embedder: embedding && openAIEmbedder(embedding),
  });
}
