/**
 * The knowledge base over either index: checks what comes in (collection names, links), hands documents
 * to `addDocument` (caps, reading, embedding, one write), turns queries into safe words and ranks them
 * (by words, or words and meaning fused), and cleans and trims what goes out.
 */
import { cleanDocumentText } from '../agent/clean-text.js';
import { addDocument } from './add-document.js';
import { embedPending } from './embedding/embed-pending.js';
import type { Embedder } from './embedding/embedder.js';
import { KnowledgeInputError } from './errors.js';
import { isParsedFormat } from './formats.js';
import { createDocumentParser, type DocumentParser, type DocumentParserOptions } from './parse/document-parser.js';
import { queryTerms, snippet } from './query-terms.js';
import { rankedHits } from './ranked-search.js';
import type { SearchIndex } from '../storage/search-index.js';
import type { AddResult, DocumentInput, KnowledgeBase, KnowledgeLimits, MeaningSearch, SearchHit, SearchOptions } from './types.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

const COLLECTION = /^[A-Za-z0-9_.:-]{1,100}$/;
const FORMATS = new Set(['markdown', 'text', 'html', 'pdf', 'docx']);
const MAX_LIMIT = 50;
/** What of a query is embedded: a question, not a document. */
const MAX_QUERY_CHARS = TEXT_CAPS.searchQuery;

/** Check a collection name: a guild id, `default`, or another short plain name. */
export function checkCollection(collection: string): string {
  if (typeof collection !== 'string' || !COLLECTION.test(collection)) {
    throw new KnowledgeInputError(`"${String(collection).slice(0, 100)}" is not a collection name: use letters, digits, _ . : or - (at most 100), e.g. a server id or "default".`);
  }
  return collection;
}

/** What the knowledge base is built from besides its index. */
export interface KnowledgeBaseDeps {
  limits: KnowledgeLimits;
  now?: () => Date;
  /** Reads PDF, Word and HTML files; made on first use when not given, and closed with the knowledge base then. */
  parser?: DocumentParser;
  /** The limits of the parser made on first use (KNOWLEDGE_MAX_PAGES, KNOWLEDGE_PARSE_TIMEOUT_MS); unused when `parser` is given. */
  parserOptions?: DocumentParserOptions;
  /** Meaning search (EMBEDDING_MODEL); absent: words only. */
  embedder?: Embedder;
}

/** Build the knowledge base over an opened index. */
export function createKnowledgeBase(index: SearchIndex, deps: KnowledgeBaseDeps): KnowledgeBase {
  const { limits, embedder } = deps;
  const now = deps.now ?? (() => new Date());
  let ownParser: DocumentParser | undefined;
  const parser = () => deps.parser ?? (ownParser ??= createDocumentParser(deps.parserOptions));
  const meaning: MeaningSearch | undefined = embedder && {
    model: embedder.model,
    status: async () => ({ model: embedder.model, storage: index.vectors.kind, ...(await index.vectors.status(embedder.model)) }),
    embedPending: (options) => embedPending(index.vectors, embedder, options),
  };
  return {
    kind: index.kind,
    where: index.where,
    limits,
    meaning,

    async add(collection, doc, options): Promise<AddResult> {
      checkCollection(collection);
      checkDocument(doc);
      return addDocument({ index, limits, parser, embedder, now }, collection, doc, options);
    },

    async remove(collection, idOrSource) {
      checkCollection(collection);
      return index.remove(collection, String(idOrSource).trim());
    },

    async list(collection) {
      checkCollection(collection);
      return index.list(collection);
    },

    async search(collection, query, options: SearchOptions = {}): Promise<SearchHit[]> {
      checkCollection(collection);
      const text = typeof query === 'string' ? query : '';
      const terms = queryTerms(text);
      if (terms.length === 0) return [];
      const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? 5) || 5));
      const hits = await rankedHits({ index, collection, terms, query: text.slice(0, MAX_QUERY_CHARS), limit, canView: options.canView, embedder });
      return hits.map(({ passageId: _passage, ...hit }) => {
        // Cleaned again on the way out: rows written by an older version, or by hand, are untrusted too.
        const cleaned = cleanDocumentText(hit.text);
        return {
          ...hit,
          title: cleanDocumentText(hit.title),
          headings: hit.headings.map(cleanDocumentText),
          ...(hit.location ? { location: cleanDocumentText(hit.location) } : {}),
          text: cleaned,
          snippet: snippet(cleaned, terms, Math.max(60, options.snippetChars ?? 320)),
        };
      });
    },

    async bytes(collection) {
      checkCollection(collection);
      return index.bytes(collection);
    },

    async hasDocuments(collection) {
      checkCollection(collection);
      return index.hasDocuments(collection);
    },

    async close() {
      await ownParser?.close();
      await index.close();
    },
  };
}

function checkDocument(doc: DocumentInput): void {
  if (doc?.channelId !== undefined && !/^\d{17,20}$/.test(doc.channelId)) {
    throw new KnowledgeInputError(`${doc.source}: a channel is named by its id (17-20 digits), not "${String(doc.channelId).slice(0, 40)}".`);
  }
  if (!doc || typeof doc.content !== 'string') throw new KnowledgeInputError('A document needs its content as text.');
  if (isParsedFormat(doc.format) && !(doc.data instanceof Uint8Array)) throw new KnowledgeInputError(`${doc.source}: a PDF or Word document needs its bytes.`);
  if (typeof doc.source !== 'string' || !doc.source.trim() || doc.source.length > 2_000) {
    throw new KnowledgeInputError('A document needs a source (its path, URL or message link) of at most 2,000 characters.');
  }
  if (!FORMATS.has(doc.format)) throw new KnowledgeInputError(`${doc.source}: unknown format "${String(doc.format)}"; use markdown, text, html, pdf or docx.`);
  if (doc.link !== undefined && !/^https?:\/\/\S+$/i.test(doc.link)) {
    throw new KnowledgeInputError(`${doc.source}: the link to cite must be an http(s) address (got "${String(doc.link).slice(0, TEXT_CAPS.echo)}").`);
  }
}
