/**
 * The knowledge index family: what a database must do for the knowledge base, which each backend folder
 * that can hold a full-text index implements (with its vectors). src/knowledge/knowledge-base.ts does the
 * rest (validation, chunking, caps, snippets) once for every backend, so they differ only in SQL.
 */
import { createHash } from 'node:crypto';
import { StorageError } from '../errors.js';
import type { VectorCache } from './vector-cache.js';

/** How a document's content is written. PDF and Word files are read from their bytes (`data`). */
export type DocumentFormat = 'markdown' | 'text' | 'html' | 'pdf' | 'docx';

/** A stored document. */
export interface DocumentInfo {
  /** Short numeric id, unique in the database; `kb remove 12` takes it. */
  id: string;
  collection: string;
  source: string;
  title: string;
  link?: string;
  format: DocumentFormat;
  /** UTF-8 bytes of the text as added (of a PDF or Word file: of its text); counted against the collection's cap. */
  bytes: number;
  passages: number;
  updatedAt: Date;
  /** The channel whose members alone may find it (a message's channel); absent: server-wide. */
  channelId?: string;
}


/** A passage as stored. */
export interface StoredPassage {
  ordinal: number;
  headings: string[];
  text: string;
  /** `p. 12`, for a page of a PDF. */
  location?: string;
  /** Its embedding by `WriteRequest.embeddingModel`, when meaning search is on and it was embedded. */
  vector?: Float32Array;
}

/**
 * A document's embedding when it was written: `pending`, the server failed and the background job
 * embeds it later; `skipped`, the server's token budget was spent, so it waits to be added again.
 */
export type EmbedState = 'pending' | 'skipped';

/** Everything one `add` writes, in one transaction. */
export interface WriteRequest {
  collection: string;
  source: string;
  title: string;
  link?: string;
  format: DocumentFormat;
  hash: string;
  bytes: number;
  /** The channel whose members alone may find it; absent: server-wide. */
  channelId?: string;
  passages: StoredPassage[];
  /** The model the passages' vectors are from (set when they carry vectors). */
  embeddingModel?: string;
  embedState?: EmbedState;
  /** Write even when the stored hash is the same (a document skipped for the budget, added again). */
  replaceSame?: boolean;
  /** The collection's cap; checked inside the transaction so concurrent adds cannot both pass it. */
  maxBytes: number;
  now: Date;
}

export type WriteOutcome =
  | { status: 'added' | 'replaced' | 'unchanged'; document: DocumentInfo }
  | { status: 'over-cap'; usedBytes: number };

/** A ranked passage as the database returns it. */
export interface RawHit {
  /** The passage's id (fusion matches the two rankings by it). */
  passageId: string;
  documentId: string;
  title: string;
  headings: string[];
  location?: string;
  text: string;
  link?: string;
  source: string;
  channelId?: string;
  score: number;
}

/** The database side of the knowledge base. */
export interface SearchIndex {
  /** The backend's kind, as its folder names it. */
  readonly kind: string;
  readonly where: string;
  /** The stored document of `source` and its hash, to skip chunking unchanged documents. */
  find(collection: string, source: string): Promise<{ hash: string; document: DocumentInfo; embedState?: EmbedState } | undefined>;
  write(request: WriteRequest): Promise<WriteOutcome>;
  remove(collection: string, idOrSource: string): Promise<DocumentInfo | undefined>;
  list(collection: string): Promise<DocumentInfo[]>;
  /** Passages matching any of `terms` (already safe words), best first. */
  search(collection: string, terms: string[], limit: number): Promise<RawHit[]>;
  bytes(collection: string): Promise<number>;
  hasDocuments(collection: string): Promise<boolean>;
  /** Passage vectors, stored beside the full-text index. */
  readonly vectors: VectorStore;
  close(): Promise<void>;
}

/** A passage still to embed, with what its embedding text is made of. */
export interface PendingPassage {
  id: string;
  collection: string;
  title: string;
  headings: string[];
  text: string;
}

/** Passage vectors: searched by similarity, filled in by the background job, counted for `npm run kb`. */
export interface VectorStore {
  /** How they are stored and compared, as the backend names it (in the SQLite file, pgvector, a PostgreSQL float4[] compared in memory). */
  readonly kind: string;
  /** The passages whose `model` vectors are nearest to `vector` (unit length), best first; score is the cosine. */
  nearest(collection: string, model: string, vector: Float32Array, limit: number): Promise<RawHit[]>;
  /** Up to `limit` passages without a `model` vector, oldest first (documents skipped for the budget left out). */
  pending(model: string, limit: number): Promise<PendingPassage[]>;
  /** Store vectors (a passage removed meanwhile is left out); other models' vectors of those passages are replaced. */
  store(model: string, rows: Array<{ id: string; vector: Float32Array }>): Promise<void>;
  /** Passages in all, those with a `model` vector, and those waiting for a re-add (budget). */
  status(model: string): Promise<{ passages: number; embedded: number; skipped: number }>;
}

/** Table-name prefix: tests and benchmarks use their own; the bot uses `kb_`. */
export const DEFAULT_PREFIX = 'kb_';
const PREFIX_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;

/** Check a table prefix before it is put into SQL. */
export function checkPrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) throw new StorageError(`Invalid knowledge table prefix "${prefix}": use lower-case letters, digits and _.`);
  return prefix;
}

/** The single FTS token that stands for a collection (so the index, not a scan, filters by collection). */
export function collectionKey(collection: string): string {
  return `k${createHash('sha256').update(collection).digest('hex').slice(0, 24)}`;
}

/** A row of the documents table, as either driver returns it. */
export interface DocumentRow {
  id: number | string;
  collection: string;
  source: string;
  title: string;
  link: string | null;
  format: string;
  bytes: number | string;
  passages: number | string;
  updated_at: string | Date;
  channel_id?: string | null;
}

/** The columns of a document, in the order both index backends select them. */
export const DOCUMENT_COLUMNS = 'id, collection, source, title, link, format, bytes, passages, updated_at, channel_id';

/**
 * The channel of a document whose source is a Discord message link, for indexes made before documents
 * remembered their channel: such a document came from "Add to knowledge base" on that message.
 */
export function channelOfMessageSource(source: string): string | undefined {
  return /^https:\/\/discord\.com\/channels\/\d{17,20}\/(\d{17,20})\/\d{17,20}$/.exec(source)?.[1];
}

export function toDocumentInfo(row: DocumentRow): DocumentInfo {
  return {
    id: String(row.id),
    collection: row.collection,
    source: row.source,
    title: row.title,
    link: row.link ?? undefined,
    format: row.format as DocumentFormat,
    bytes: Number(row.bytes),
    passages: Number(row.passages),
    updatedAt: new Date(row.updated_at),
    ...(row.channel_id ? { channelId: row.channel_id } : {}),
  };
}

/** A passage joined to its document, as both index backends select it for a hit. */
export interface PassageRow {
  id: number | string;
  document_id: number | string;
  headings: unknown;
  body: string;
  location: string | null;
  title: string;
  link: string | null;
  source: string;
  channel_id: string | null;
}

/** The hit of a passage row, with its score (higher is better). */
export function toRawHit(r: PassageRow, score: number): RawHit {
  return {
    passageId: String(r.id), documentId: String(r.document_id), title: r.title, headings: parseHeadings(r.headings), text: r.body,
    ...(r.location ? { location: r.location } : {}),
    link: r.link ?? undefined, source: r.source, ...(r.channel_id ? { channelId: r.channel_id } : {}), score,
  };
}

/** Headings are stored as a JSON array; anything unreadable counts as none. */
export function parseHeadings(raw: unknown): string[] {
  try {
    const value = typeof raw === 'string' ? JSON.parse(raw) : raw;
    return Array.isArray(value) ? value.filter((h): h is string => typeof h === 'string') : [];
  } catch {
    return [];
  }
}

/** How an index (knowledge or past threads) opens on a backend; each backend uses the bounds that apply to it. */
export interface IndexOpenOptions {
  /** Table-name prefix, already checked (checkPrefix). */
  prefix: string;
  /** SQLite: how long to wait for another process's lock. */
  busyMs: number;
  /** A server: connecting, and one query. */
  connectMs: number;
  queryMs: number;
  /** Trouble outside any call (a connection dropped while idle). */
  onBackgroundError: (message: string) => void;
}

/** How the knowledge index opens. */
export interface SearchIndexOptions extends IndexOpenOptions {
  /** The in-memory vectors of backends that cannot compare vectors themselves. */
  vectorCache: VectorCache;
  /** PostgreSQL: `array` keeps vectors in a real[] column even where pgvector exists (tests of the fallback). */
  vectorColumn?: 'auto' | 'array';
}
