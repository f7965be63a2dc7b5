/**
 * Open the knowledge base a URL names, in any backend that can hold a full-text index (the registry,
 * src/storage/registry.ts, says which: SQLite, PostgreSQL, and `memory:` as a private in-memory SQLite
 * database for tests and one-off terminal runs). Opening is real: it connects and creates the tables,
 * so a wrong URL, a dead server or a SQLite without FTS5 is a clear StorageError at start-up.
 */
import { StorageError } from '../errors.js';
import { openSearchIndex } from '../storage/open.js';
import { checkPrefix, DEFAULT_PREFIX } from '../storage/search-index.js';
import { VectorCache } from '../storage/vector-cache.js';
import { createKnowledgeBase } from './knowledge-base.js';
import type { Embedder } from './embedding/embedder.js';
import type { DocumentParser, DocumentParserOptions } from './parse/document-parser.js';
import { DEFAULT_LIMITS, type KnowledgeBase, type KnowledgeLimits } from './types.js';

/** Reports of trouble outside any call (a PostgreSQL connection dropped while idle). */
export type KnowledgeLogger = (event: { level: 'warn' | 'error'; message: string }) => void;

export interface OpenKnowledgeOptions {
  /** A relative SQLite path is taken from here (the project root under npm). */
  baseDir: string;
  limits?: Partial<KnowledgeLimits>;
  logger?: KnowledgeLogger;
  /** Table-name prefix (default `kb_`); tests use a unique one per run. */
  prefix?: string;
  timeouts?: { connectMs?: number; queryMs?: number; busyMs?: number };
  now?: () => Date;
  /** Reads PDF and Word files (the bot shares one with `read_url`); made on first use when absent. */
  parser?: DocumentParser;
  /** The limits of the parser the knowledge base makes (and closes) itself when none is given. */
  parserOptions?: DocumentParserOptions;
  /** Meaning search (EMBEDDING_MODEL); absent: words only. */
  embedder?: Embedder;
  /** PostgreSQL: `array` keeps vectors in a real[] column even where pgvector exists (tests of the fallback). */
  vectorColumn?: 'auto' | 'array';
}

/** Open (and create if needed) the knowledge base at `url`. Throws StorageError when it cannot. */
export async function openKnowledgeBase(url: string, options: OpenKnowledgeOptions): Promise<KnowledgeBase> {
  const limits: KnowledgeLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (limits.maxFileBytes > limits.maxBytes) {
    throw new StorageError(`KNOWLEDGE_MAX_FILE_BYTES (${limits.maxFileBytes}) cannot be larger than KNOWLEDGE_MAX_BYTES (${limits.maxBytes}).`);
  }
  const prefix = checkPrefix(options.prefix ?? DEFAULT_PREFIX);
  const logger = options.logger ?? ((event) => console.warn(`[knowledge] ${event.message}`));
  const index = await openSearchIndex(url, options.baseDir, {
    prefix,
    busyMs: options.timeouts?.busyMs ?? 3_000,
    connectMs: options.timeouts?.connectMs ?? 5_000,
    queryMs: options.timeouts?.queryMs ?? 30_000,
    onBackgroundError: (message) => logger({ level: 'error', message }),
    vectorColumn: options.vectorColumn,
    vectorCache: new VectorCache(),
  });
  return createKnowledgeBase(index, { limits, now: options.now, parser: options.parser, parserOptions: options.parserOptions, embedder: options.embedder });
}
