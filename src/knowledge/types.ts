/**
 * The knowledge base's public shapes. A collection is one server's documents (its guild id) or the
 * terminal's (`default`); a document is split into passages that are searched and cited.
 */
import type { DocumentFormat, DocumentInfo } from '../storage/search-index.js';
import type { EmbeddingBudget } from './embedding/embedder.js';

export type { DocumentFormat, DocumentInfo } from '../storage/search-index.js';

/** A document to add, as a source loader (file, URL, Discord message, attachment) produced it. */
export interface DocumentInput {
  /**
   * What the document is, within its collection: an absolute file path, a URL or a message link.
   * Adding a document with the same source again replaces it.
   */
  source: string;
  /** Shown in results; taken from the content (first heading, <title>) or the file name when absent. */
  title?: string;
  /** A public http(s) link to cite (the page, the Discord message); none for a local file. */
  link?: string;
  format: DocumentFormat;
  /** The text as given (Markdown, plain text or HTML); empty for a PDF or Word file. */
  content: string;
  /** A PDF or Word file's bytes (capped by KNOWLEDGE_MAX_UPLOAD_BYTES); its extracted text is what the caps count. */
  data?: Uint8Array;
  /**
   * The Discord channel a message document was taken from: its passages are found only by members who
   * can view that channel. Absent (every other document): found by anyone in the server.
   */
  channelId?: string;
}

/** What `add` did. `unchanged`: the same content was already indexed under this source. */
export interface AddResult {
  status: 'added' | 'replaced' | 'unchanged';
  document: DocumentInfo;
  /** How its passages were embedded for meaning search; absent when meaning search is off (or unchanged). */
  embedding?: EmbeddingOutcome;
  /** How it was read, when not as usual: a sentence for whoever added it (an HTML page read as plain text, and why). */
  note?: string;
}

/**
 * `done`: every passage has its vector. `pending`: the embedding server failed, so the document is found
 * by words until the background job embeds it. `skipped`: the server's token budget for today was spent;
 * words only until it is added again.
 */
export interface EmbeddingOutcome {
  state: 'done' | 'pending' | 'skipped';
  model: string;
  tokens: number;
  /** Why it is not `done`. */
  reason?: string;
}

/** How far a long `add` is: pages read (PDF), then passages embedded. */
export interface AddProgress {
  stage: 'reading' | 'embedding';
  done: number;
  total: number;
  unit: 'pages' | 'passages';
}

/** Options of `add`. */
export interface AddOptions {
  /** Told as pages are read and passages embedded. */
  onProgress?: (progress: AddProgress) => void;
  /** The server's token budget, charged for the embeddings (none: the terminal's, uncounted). */
  budget?: EmbeddingBudget;
  signal?: AbortSignal;
}

/** Meaning search's state, for `npm run kb`. */
export interface MeaningStatus {
  model: string;
  /** Where vectors are kept, as the backend names it (see VectorStore.kind). */
  storage: string;
  passages: number;
  /** Passages with a vector of `model`. */
  embedded: number;
  /** Passages of documents skipped for a spent budget (embedded when added again). */
  skipped: number;
}

/** Meaning search, present when EMBEDDING_MODEL is set. */
export interface MeaningSearch {
  readonly model: string;
  status(): Promise<MeaningStatus>;
  /**
   * Embed passages that have no vector of the model (a changed model, a server that was down when they
   * were added), batch by batch until none is left; `onBatch` gets the running total.
   */
  embedPending(options?: { signal?: AbortSignal; onBatch?: (embedded: number) => void }): Promise<{ embedded: number; tokens: number; calls: number }>;
}

/** One ranked passage. */
export interface SearchHit {
  documentId: string;
  /** The document's title. */
  title: string;
  /** The headings above the passage, outermost first (without the title itself). */
  headings: string[];
  /** Where in the document it is, when the document has pages: `p. 12`. */
  location?: string;
  /** A short window of the passage around the query's words (untrusted text, already cleaned). */
  snippet: string;
  /** The whole passage (untrusted text, already cleaned). */
  text: string;
  /** The link to cite, when the document has one. */
  link?: string;
  source: string;
  /** The channel whose members alone may find the passage; absent: server-wide. */
  channelId?: string;
  /** Higher is better; comparable only within one search. */
  score: number;
}

/** Options of `search`. */
export interface SearchOptions {
  /** Passages to return: default 5, at most 50. */
  limit?: number;
  /** Longest snippet in characters: default 320. */
  snippetChars?: number;
  /**
   * Whether the one searching may view a channel: passages bound to a channel (from its messages) are
   * returned only when it says yes. Absent: every passage (the terminal, which sees everything).
   */
  canView?: (channelId: string) => boolean | Promise<boolean>;
}

/** Size caps, from KNOWLEDGE_MAX_FILE_BYTES, KNOWLEDGE_MAX_UPLOAD_BYTES and KNOWLEDGE_MAX_BYTES. */
export interface KnowledgeLimits {
  /** Largest single document's text (UTF-8 bytes as added, or extracted from a PDF or Word file). */
  maxFileBytes: number;
  /** Largest PDF or Word file, as a file (its text must still fit `maxFileBytes`). */
  maxUploadBytes: number;
  /** Most bytes one collection may hold. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: KnowledgeLimits = { maxFileBytes: 1_000_000, maxUploadBytes: 10_000_000, maxBytes: 50_000_000 };

/** Which backend holds the index: its kind, as its folder names it (src/storage/<kind>/). */
export type KnowledgeKind = string;

/**
 * The knowledge base. Every method takes the collection; ids and sources are only looked up inside it,
 * so one server can never read, replace or remove another's documents.
 */
export interface KnowledgeBase {
  readonly kind: KnowledgeKind;
  /** Where the index lives, safe to print (no password). */
  readonly where: string;
  readonly limits: KnowledgeLimits;
  /**
   * Index a document, replacing the one with the same source. Unchanged content (same hash) is not
   * indexed again. Throws KnowledgeInputError when the document is refused (too big, over the
   * collection's cap, binary, empty) and StorageError when the database fails; nothing is written then.
   */
  add(collection: string, doc: DocumentInput, options?: AddOptions): Promise<AddResult>;
  /** Remove a document by id or exact source; the removed document, or undefined when none matched. */
  remove(collection: string, idOrSource: string): Promise<DocumentInfo | undefined>;
  /** Every document of the collection, most recently updated first. */
  list(collection: string): Promise<DocumentInfo[]>;
  /** Ranked passages for a query in plain words; any text is accepted and none of it is query syntax. */
  search(collection: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** Bytes the collection holds (what KNOWLEDGE_MAX_BYTES caps). */
  bytes(collection: string): Promise<number>;
  /** Whether the collection has any document: one indexed lookup, for deciding to offer the tool. */
  hasDocuments(collection: string): Promise<boolean>;
  /** Meaning search (EMBEDDING_MODEL); undefined: words only. */
  readonly meaning?: MeaningSearch;
  close(): Promise<void>;
}
