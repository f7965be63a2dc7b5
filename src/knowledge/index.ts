/**
 * The knowledge base: a server's own documents (Markdown, text, HTML, PDF, Word), split into passages,
 * searched with full-text search (SQLite FTS5 or PostgreSQL) and, with EMBEDDING_MODEL, by meaning,
 * cited by title, page and link. What the rest of the bot uses comes from here.
 */
export type {
  AddOptions, AddProgress, AddResult, DocumentFormat, DocumentInfo, DocumentInput, EmbeddingOutcome, KnowledgeBase, KnowledgeKind, KnowledgeLimits,
  MeaningSearch, MeaningStatus, SearchHit, SearchOptions,
} from './types.js';
export { createDocumentParser, type DocumentParser, type DocumentParserOptions } from './parse/document-parser.js';
export { createEmbedder, EmbeddingBudgetError, EmbeddingServerError, type Embedder, type EmbeddingBudget, type EmbeddingsClient } from './embedding/embedder.js';
export { openAIEmbedder } from './embedding/openai-embedder.js';
export { startEmbeddingSync, type EmbeddingSync } from './embedding/embedding-sync.js';
export { progressText, duration } from './progress-text.js';
export { ACCEPTED } from './formats.js';
export { DEFAULT_LIMITS } from './types.js';
export { KnowledgeInputError } from './errors.js';
export { openKnowledgeBase, type KnowledgeLogger, type OpenKnowledgeOptions } from './open-knowledge-base.js';
export { KNOWLEDGE_OFF, openConfiguredKnowledge, parserOptionsFrom, type ConfiguredKnowledgeOptions } from './open-configured.js';
export { passagePlace } from './passage-place.js';
export { checkCollection } from './knowledge-base.js';
export { documentFromBytes, formatBytes, formatOfMediaType, formatOfName, type BytesDocument } from './documents.js';
export {
  documentFromDiscordMessage, documentFromFile, documentFromUrl, listFolder, type DiscordMessageSource, type UrlSourceOptions,
} from './sources.js';
export { cleanDocumentText } from '../agent/clean-text.js';
