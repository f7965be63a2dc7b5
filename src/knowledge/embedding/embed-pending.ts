/**
 * Filling in the vectors that are missing: after EMBEDDING_MODEL changed (every passage lacks a vector
 * of the new model; until it has one, it is found by words, and the old model's vectors are never
 * compared with the new model's queries), and for documents added while the embedding server was down.
 * Batch by batch, oldest passages first, each batch stored in its own transaction, so an interrupted
 * run loses at most one batch and the next run goes on where it stopped.
 */
import type { Embedder } from './embedder.js';
import { embeddingText } from './embedder.js';
import type { VectorStore } from '../../storage/search-index.js';

export interface EmbedPendingOptions {
  /** Passages per round (default 64). */
  batch?: number;
  signal?: AbortSignal;
  /** Told the running total after each stored batch. */
  onBatch?: (embedded: number) => void;
}

/** Embed every pending passage; throws the embedding server's error (what was stored stays). */
export async function embedPending(vectors: VectorStore, embedder: Embedder, options: EmbedPendingOptions = {}): Promise<{ embedded: number; tokens: number; calls: number }> {
  const batch = options.batch ?? 64;
  let embedded = 0;
  let tokens = 0;
  let calls = 0;
  const seen = new Set<string>();
  for (;;) {
    if (options.signal?.aborted) break;
    // A passage that comes back after being stored was removed and re-added meanwhile; never loop on it.
    const pending = (await vectors.pending(embedder.model, batch)).filter((p) => !seen.has(p.id));
    if (pending.length === 0) break;
    const out = await embedder.embed(pending.map((p) => embeddingText(p.title, p.headings, p.text)), { signal: options.signal });
    await vectors.store(embedder.model, pending.map((p, i) => ({ id: p.id, vector: out.vectors[i]! })));
    for (const p of pending) seen.add(p.id);
    embedded += pending.length;
    tokens += out.tokens;
    calls += out.calls;
    options.onBatch?.(embedded);
    if (pending.length < batch) break;
  }
  return { embedded, tokens, calls };
}
