/**
 * Adding one document, start to end: the size caps, the unchanged check, reading it (a PDF, Word or
 * HTML file in the parser's worker), embedding its passages when meaning search is on, and one write. Every
 * step before the write can refuse, and the write is one transaction, so a refused or failed document
 * leaves nothing behind. An embedding server that fails only costs meaning: the document is written
 * for word search, marked for the background job, and the result says so.
 */
import { describeError } from '../errors.js';
import { documentHash, formatBytes, prepareDocument, type PreparedDocument } from './documents.js';
import { EmbeddingBudgetError, embeddingText, type Embedder } from './embedding/embedder.js';
import { KnowledgeInputError } from './errors.js';
import { isParsedFormat, readInWorker } from './formats.js';
import type { DocumentParser } from './parse/document-parser.js';
import { prepareParsed } from './prepare-parsed.js';
import type { SearchIndex, StoredPassage } from '../storage/search-index.js';
import type { AddOptions, AddResult, DocumentInput, EmbeddingOutcome, KnowledgeLimits } from './types.js';

/** What adding needs besides the document. */
export interface AddDeps {
  index: SearchIndex;
  limits: KnowledgeLimits;
  parser: () => DocumentParser;
  embedder?: Embedder;
  now: () => Date;
}

/** Add `doc` to `collection` (both already checked). */
export async function addDocument(deps: AddDeps, collection: string, doc: DocumentInput, options: AddOptions = {}): Promise<AddResult> {
  const { index, limits, embedder } = deps;
  const parsed = isParsedFormat(doc.format);
  const size = parsed ? doc.data?.length ?? 0 : Buffer.byteLength(doc.content, 'utf8');
  const cap = parsed ? limits.maxUploadBytes : limits.maxFileBytes;
  if (size > cap) {
    const name = parsed ? 'a PDF or Word file' : 'a document';
    throw new KnowledgeInputError(`${doc.source} is ${formatBytes(size)}; ${name} may be at most ${formatBytes(cap)} (${parsed ? 'KNOWLEDGE_MAX_UPLOAD_BYTES' : 'KNOWLEDGE_MAX_FILE_BYTES'}).`);
  }
  const stored = await index.find(collection, doc.source);
  // A document skipped for the budget is embedded when added again, though its content is the same.
  const retry = embedder !== undefined && stored?.embedState === 'skipped';
  if (stored && stored.hash === documentHash(doc) && !retry) return { status: 'unchanged', document: stored.document };
  const prepared: PreparedDocument = readInWorker(doc.format)
    ? await prepareParsed(doc, deps.parser(), {
      maxTextBytes: limits.maxFileBytes, signal: options.signal,
      onPages: (done, total) => options.onProgress?.({ stage: 'reading', done, total, unit: 'pages' }),
    })
    : prepareDocument(doc);
  const passages: StoredPassage[] = prepared.passages.map((p, ordinal) => ({ ordinal, headings: p.headings, text: p.text, ...(p.location ? { location: p.location } : {}) }));
  // Checked before spending tokens on embeddings; the write checks it again under its lock.
  const used = (await index.bytes(collection)) - (stored?.document.bytes ?? 0);
  if (used + prepared.bytes > limits.maxBytes) throw overCap(prepared, limits, used);
  const embedding = embedder ? await embedPassages(embedder, prepared, passages, options) : undefined;
  const outcome = await index.write({
    collection, source: doc.source, title: prepared.title, link: doc.link, format: doc.format, hash: prepared.hash, bytes: prepared.bytes, channelId: doc.channelId,
    passages, maxBytes: limits.maxBytes, now: deps.now(), replaceSame: retry,
    ...(embedding ? { embeddingModel: embedding.model, ...(embedding.state !== 'done' ? { embedState: embedding.state } : {}) } : {}),
  });
  if (outcome.status === 'over-cap') throw overCap(prepared, limits, outcome.usedBytes);
  return { ...outcome, ...(embedding ? { embedding } : {}), ...(prepared.note ? { note: prepared.note } : {}) };
}

/** Embed the passages in place (their `vector`); a failure is reported in the outcome, not thrown. */
async function embedPassages(embedder: Embedder, prepared: PreparedDocument, passages: StoredPassage[], options: AddOptions): Promise<EmbeddingOutcome> {
  const texts = passages.map((p) => embeddingText(prepared.title, p.headings, p.text));
  try {
    const { vectors, tokens } = await embedder.embed(texts, {
      signal: options.signal, budget: options.budget,
      onBatch: (done, total) => options.onProgress?.({ stage: 'embedding', done, total, unit: 'passages' }),
    });
    vectors.forEach((vector, i) => (passages[i]!.vector = vector));
    return { state: 'done', model: embedder.model, tokens };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // Vectors of the batches that did get through are dropped too: a document is embedded whole or not at all.
    for (const p of passages) delete p.vector;
    const skipped = error instanceof EmbeddingBudgetError;
    return { state: skipped ? 'skipped' : 'pending', model: embedder.model, tokens: 0, reason: skipped ? error.message : describeError(error) };
  }
}

function overCap(prepared: PreparedDocument, limits: KnowledgeLimits, usedBytes: number): KnowledgeInputError {
  return new KnowledgeInputError(
    `Adding "${prepared.title}" (${formatBytes(prepared.bytes)}) would take this knowledge base past its ${formatBytes(limits.maxBytes)} cap ` +
    `(KNOWLEDGE_MAX_BYTES); it already holds ${formatBytes(usedBytes)}. Remove documents first.`,
  );
}
