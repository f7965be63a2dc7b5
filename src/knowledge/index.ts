/**
 * The knowledge base: a server's own documents, split into passages, searched with full-text search
 * (SQLite FTS5 or PostgreSQL), cited by title and link. What the rest of the bot uses comes from here.
 */
export type {
  AddResult, DocumentFormat, DocumentInfo, DocumentInput, KnowledgeBase, KnowledgeKind, KnowledgeLimits, SearchHit, SearchOptions,
} from './types.js';
export { DEFAULT_LIMITS } from './types.js';
export { KnowledgeInputError } from './errors.js';
export { openKnowledgeBase, type KnowledgeLogger, type OpenKnowledgeOptions } from './open-knowledge-base.js';
export { checkCollection } from './knowledge-base.js';
export { documentFromBytes, formatBytes, formatOfMediaType, formatOfName, type BytesDocument } from './documents.js';
export {
  documentFromDiscordMessage, documentFromFile, documentFromUrl, listFolder, type DiscordMessageSource, type UrlSourceOptions,
} from './sources.js';
export { cleanDocumentText } from '../agent/clean-text.js';
