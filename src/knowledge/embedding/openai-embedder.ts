/**
 * The embedder over the `openai` SDK, from EMBEDDING_MODEL and its server settings. The SDK brings the
 * retries with backoff (429, 5xx, dropped connections) and the request timeout.
 */
import OpenAI from 'openai';
import type { EmbeddingConfig } from '../../config.js';
import { createEmbedder, type Embedder } from './embedder.js';

/** An embedder talking to `server`'s `/v1/embeddings`. */
export function openAIEmbedder(server: EmbeddingConfig, fetchImpl?: typeof fetch): Embedder {
  const client = new OpenAI({ apiKey: server.apiKey, baseURL: server.baseURL, timeout: server.timeoutMs, maxRetries: server.maxRetries, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  return createEmbedder({ client, model: server.model, dimensions: server.dimensions, batchSize: server.batchSize });
}
