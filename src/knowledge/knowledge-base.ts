/**
 * The knowledge base over either index: checks what comes in (collection names, sizes, links), turns
 * documents into cleaned passages, turns queries into safe words, and cleans and trims what goes out.
 */
import { cleanDocumentText } from '../agent/clean-text.js';
import { documentHash, formatBytes, prepareDocument } from './documents.js';
import type { SearchIndex, RawHit } from './search-index.js';
import { KnowledgeInputError } from './errors.js';
import { queryTerms, snippet } from './query-terms.js';
import type { AddResult, DocumentInput, KnowledgeBase, KnowledgeLimits, SearchHit, SearchOptions } from './types.js';

const COLLECTION = /^[A-Za-z0-9_.:-]{1,100}$/;
const FORMATS = new Set(['markdown', 'text', 'html']);
const MAX_LIMIT = 50;
/** Most ranked passages read to find `limit` the searcher may see, when channel-bound ones rank first. */
const MAX_SCAN = 500;

/** Check a collection name: a guild id, `default`, or another short plain name. */
export function checkCollection(collection: string): string {
  if (typeof collection !== 'string' || !COLLECTION.test(collection)) {
    throw new KnowledgeInputError(`"${String(collection).slice(0, 100)}" is not a collection name: use letters, digits, _ . : or - (at most 100), e.g. a server id or "default".`);
  }
  return collection;
}

/** Build the knowledge base over an opened index. */
export function createKnowledgeBase(index: SearchIndex, limits: KnowledgeLimits, now: () => Date = () => new Date()): KnowledgeBase {
  return {
    kind: index.kind,
    where: index.where,
    limits,

    async add(collection, doc): Promise<AddResult> {
      checkCollection(collection);
      checkDocument(doc);
      const bytes = Buffer.byteLength(doc.content, 'utf8');
      if (bytes > limits.maxFileBytes) {
        throw new KnowledgeInputError(`${doc.source} is ${formatBytes(bytes)}; a document may be at most ${formatBytes(limits.maxFileBytes)} (KNOWLEDGE_MAX_FILE_BYTES).`);
      }
      const stored = await index.find(collection, doc.source);
      if (stored && stored.hash === documentHash(doc)) return { status: 'unchanged', document: stored.document };
      const prepared = prepareDocument(doc);
      const outcome = await index.write({
        collection, source: doc.source, title: prepared.title, link: doc.link, format: doc.format, hash: prepared.hash, bytes, channelId: doc.channelId,
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
      return index.remove(collection, String(idOrSource).trim());
    },

    async list(collection) {
      checkCollection(collection);
      return index.list(collection);
    },

    async search(collection, query, options: SearchOptions = {}): Promise<SearchHit[]> {
      checkCollection(collection);
      const terms = queryTerms(typeof query === 'string' ? query : '');
      if (terms.length === 0) return [];
      const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? 5) || 5));
      const hits = await visibleHits(index, collection, terms, limit, options.canView);
      return hits.map((hit) => {
        // Cleaned again on the way out: rows written by an older version, or by hand, are untrusted too.
        const text = cleanDocumentText(hit.text);
        return {
          ...hit,
          title: cleanDocumentText(hit.title),
          headings: hit.headings.map(cleanDocumentText),
          text,
          snippet: snippet(text, terms, Math.max(60, options.snippetChars ?? 320)),
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

    close: () => index.close(),
  };
}

/**
 * The best `limit` passages the searcher may see. Channel-bound passages they may not see are left out
 * after ranking, so more are read (four times as many each round, up to MAX_SCAN) until `limit` are
 * found or the matches run out. Each channel is asked about once per search.
 */
async function visibleHits(index: SearchIndex, collection: string, terms: string[], limit: number, canView: SearchOptions['canView']): Promise<RawHit[]> {
  if (!canView) return index.search(collection, terms, limit);
  const answers = new Map<string, Promise<boolean>>();
  const mayView = (channelId: string) => {
    let answer = answers.get(channelId);
    if (!answer) answers.set(channelId, (answer = Promise.resolve(canView(channelId)).catch(() => false)));
    return answer;
  };
  for (let scan = limit; ; scan = Math.min(MAX_SCAN, scan * 4)) {
    const hits = await index.search(collection, terms, scan);
    const shown = await Promise.all(hits.map((hit) => (hit.channelId ? mayView(hit.channelId) : true)));
    const visible = hits.filter((_, i) => shown[i]);
    if (visible.length >= limit || hits.length < scan || scan >= MAX_SCAN) return visible.slice(0, limit);
  }
}

function checkDocument(doc: DocumentInput): void {
  if (doc?.channelId !== undefined && !/^\d{17,20}$/.test(doc.channelId)) {
    throw new KnowledgeInputError(`${doc.source}: a channel is named by its id (17-20 digits), not "${String(doc.channelId).slice(0, 40)}".`);
  }
  if (!doc || typeof doc.content !== 'string') throw new KnowledgeInputError('A document needs its content as text.');
  if (typeof doc.source !== 'string' || !doc.source.trim() || doc.source.length > 2_000) {
    throw new KnowledgeInputError('A document needs a source (its path, URL or message link) of at most 2,000 characters.');
  }
  if (!FORMATS.has(doc.format)) throw new KnowledgeInputError(`${doc.source}: unknown format "${String(doc.format)}"; use markdown, text or html.`);
  if (doc.link !== undefined && !/^https?:\/\/\S+$/i.test(doc.link)) {
    throw new KnowledgeInputError(`${doc.source}: the link to cite must be an http(s) address (got "${String(doc.link).slice(0, 200)}").`);
  }
}
