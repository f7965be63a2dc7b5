/**
 * The knowledge base over either engine: checks what comes in (collection names, sizes, links), turns
 * documents into cleaned passages, turns queries into safe words, and cleans and trims what goes out.
 */
import { cleanText } from './clean-text.js';
import { documentHash, formatBytes, prepareDocument } from './documents.js';
import type { KnowledgeEngine } from './engine.js';
import { KnowledgeInputError } from './errors.js';
import { queryTerms, snippet } from './query-terms.js';
import type { AddResult, DocumentInput, KnowledgeBase, KnowledgeLimits, SearchHit, SearchOptions } from './types.js';

const COLLECTION = /^[A-Za-z0-9_.:-]{1,100}$/;
const FORMATS = new Set(['markdown', 'text', 'html']);
const MAX_LIMIT = 50;

/** Check a collection name: a guild id, `default`, or another short plain name. */
export function checkCollection(collection: string): string {
  if (typeof collection !== 'string' || !COLLECTION.test(collection)) {
    throw new KnowledgeInputError(`"${String(collection).slice(0, 100)}" is not a collection name: use letters, digits, _ . : or - (at most 100), e.g. a server id or "default".`);
  }
  return collection;
}

/** Build the knowledge base over an opened engine. */
export function createKnowledgeBase(engine: KnowledgeEngine, limits: KnowledgeLimits, now: () => Date = () => new Date()): KnowledgeBase {
  return {
    kind: engine.kind,
    where: engine.where,
    limits,

    async add(collection, doc): Promise<AddResult> {
      checkCollection(collection);
      checkDocument(doc);
      const bytes = Buffer.byteLength(doc.content, 'utf8');
      if (bytes > limits.maxFileBytes) {
        throw new KnowledgeInputError(`${doc.source} is ${formatBytes(bytes)}; a document may be at most ${formatBytes(limits.maxFileBytes)} (KNOWLEDGE_MAX_FILE_BYTES).`);
      }
      const stored = await engine.find(collection, doc.source);
      if (stored && stored.hash === documentHash(doc)) return { status: 'unchanged', document: stored.document };
      const prepared = prepareDocument(doc);
      const outcome = await engine.write({
        collection, source: doc.source, title: prepared.title, link: doc.link, format: doc.format, hash: prepared.hash, bytes,
        passages: prepared.passages.map((p, ordinal) => ({ ordinal, headings: p.headings, text: p.text })),
        maxBytes: limits.maxBytes, now: now(),
      });
      if (outcome.status === 'over-cap') {
        throw new KnowledgeInputError(
          `Adding "${prepared.title}" (${formatBytes(bytes)}) would take this knowledge base past its ${formatBytes(limits.maxBytes)} cap ` +
          `(KNOWLEDGE_MAX_BYTES); it already holds ${formatBytes(outcome.usedBytes)}. Remove documents first.`,
        );
      }
      return outcome;
    },

    async remove(collection, idOrSource) {
      checkCollection(collection);
      return engine.remove(collection, String(idOrSource).trim());
    },

    async list(collection) {
      checkCollection(collection);
      return engine.list(collection);
    },

    async search(collection, query, options: SearchOptions = {}): Promise<SearchHit[]> {
      checkCollection(collection);
      const terms = queryTerms(typeof query === 'string' ? query : '');
      if (terms.length === 0) return [];
      const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? 5) || 5));
      const hits = await engine.search(collection, terms, limit);
      return hits.map((hit) => {
        // Cleaned again on the way out: rows written by an older version, or by hand, are untrusted too.
        const text = cleanText(hit.text);
        return {
          ...hit,
          title: cleanText(hit.title),
          headings: hit.headings.map(cleanText),
          text,
          snippet: snippet(text, terms, Math.max(60, options.snippetChars ?? 320)),
        };
      });
    },

    async bytes(collection) {
      checkCollection(collection);
      return engine.bytes(collection);
    },

    async hasDocuments(collection) {
      checkCollection(collection);
      return engine.hasDocuments(collection);
    },

    close: () => engine.close(),
  };
}

function checkDocument(doc: DocumentInput): void {
  if (!doc || typeof doc.content !== 'string') throw new KnowledgeInputError('A document needs its content as text.');
  if (typeof doc.source !== 'string' || !doc.source.trim() || doc.source.length > 2_000) {
    throw new KnowledgeInputError('A document needs a source (its path, URL or message link) of at most 2,000 characters.');
  }
  if (!FORMATS.has(doc.format)) throw new KnowledgeInputError(`${doc.source}: unknown format "${String(doc.format)}"; use markdown, text or html.`);
  if (doc.link !== undefined && !/^https?:\/\/\S+$/i.test(doc.link)) {
    throw new KnowledgeInputError(`${doc.source}: the link to cite must be an http(s) address (got "${String(doc.link).slice(0, 200)}").`);
  }
}
