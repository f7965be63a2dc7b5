/**
 * Passages and queries to vectors through an OpenAI-compatible `/v1/embeddings` (OpenAI, Ollama,
 * vLLM, llama.cpp, LM Studio), with the `openai` SDK the bot already talks to its model with: its
 * retries (429, 5xx, dropped connections, with backoff) apply to every batch. Inputs go in batches of
 * `batchSize` passages and at most `maxBatchTokens` estimated tokens, and a budget (the server's daily
 * tokens) is asked before each batch and charged after it with the tokens the server reports.
 */
import { describeError } from '../../errors.js';
import { normalize } from '../../storage/vectors.js';

/** The part of the `openai` client used here. */
export interface EmbeddingsClient {
  embeddings: {
    create(
      body: { model: string; input: string[]; dimensions?: number; encoding_format?: 'float' },
      options?: { signal?: AbortSignal; timeout?: number; maxRetries?: number },
    ): PromiseLike<{ data: Array<{ embedding: number[] | string; index: number }>; usage?: { prompt_tokens?: number; total_tokens?: number } }>;
  };
}

/** Tokens a job may spend, and where they are counted (a server's daily budget). */
export interface EmbeddingBudget {
  /** Tokens that may still be spent; Infinity when nothing caps them. */
  room(): Promise<number>;
  /** Count tokens spent on `model`. */
  spend(tokens: number, model: string): Promise<void>;
}

/** The budget had no room for the next batch: nothing more was sent. */
export class EmbeddingBudgetError extends Error {
  override name = 'EmbeddingBudgetError';
}

/** The embedding server failed (down, refused, answered something unusable) after the SDK's retries. */
export class EmbeddingServerError extends Error {
  override name = 'EmbeddingServerError';
}

export interface EmbedderOptions {
  client: EmbeddingsClient;
  model: string;
  /** Asked of models that can shorten their vectors (`text-embedding-3-*`); unset: the model's own size. */
  dimensions?: number;
  /** Passages per request (default 64). */
  batchSize?: number;
  /** Estimated tokens per request at most (default 100,000; OpenAI allows 300,000). */
  maxBatchTokens?: number;
  /** Deadline of one query's embedding at search time, so a slow server only costs meaning (default 5 s). */
  queryTimeoutMs?: number;
}

/** What `embed` did. */
export interface Embedded {
  vectors: Float32Array[];
  /** Tokens the server reported (estimated where it reports none). */
  tokens: number;
  /** Requests made. */
  calls: number;
}

export interface Embedder {
  readonly model: string;
  /** Vectors for `texts`, in order, each of unit length. Throws EmbeddingBudgetError or EmbeddingServerError. */
  embed(texts: string[], options?: { signal?: AbortSignal; budget?: EmbeddingBudget; onBatch?: (done: number, total: number) => void }): Promise<Embedded>;
  /** One query's vector, quickly or not at all (undefined when the server fails: search by words alone). */
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array | undefined>;
}

/** About four characters a token, as elsewhere in the bot; the server's count is what is charged. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function createEmbedder(options: EmbedderOptions): Embedder {
  const batchSize = options.batchSize ?? 64;
  const maxBatchTokens = options.maxBatchTokens ?? 100_000;
  const { client, model } = options;

  const request = async (input: string[], extra: { signal?: AbortSignal; timeout?: number; maxRetries?: number } = {}) => {
    let response;
    try {
      response = await client.embeddings.create({ model, input, encoding_format: 'float', ...(options.dimensions ? { dimensions: options.dimensions } : {}) }, extra);
    } catch (error) {
      throw new EmbeddingServerError(`the embedding server did not embed (${describeError(error)})`, { cause: error });
    }
    const data = [...(response?.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== input.length || data.some((d) => !Array.isArray(d.embedding) || d.embedding.length === 0)) {
      throw new EmbeddingServerError(`the embedding server answered ${data.length} vectors for ${input.length} inputs, or vectors that are not lists of numbers`);
    }
    const vectors = data.map((d) => normalize(d.embedding as number[]));
    if (vectors.some((v) => v.length !== vectors[0]!.length || v.some((x) => !Number.isFinite(x)))) {
      throw new EmbeddingServerError('the embedding server answered vectors of different sizes or with non-numbers');
    }
    const tokens = response.usage?.prompt_tokens ?? response.usage?.total_tokens ?? input.reduce((n, t) => n + estimateTokens(t), 0);
    return { vectors, tokens };
  };

  return {
    model,
    async embed(texts, { signal, budget, onBatch } = {}) {
      const vectors: Float32Array[] = [];
      let tokens = 0;
      let calls = 0;
      for (let at = 0; at < texts.length;) {
        let end = at;
        let estimate = 0;
        while (end < texts.length && end - at < batchSize && (end === at || estimate + estimateTokens(texts[end]!) <= maxBatchTokens)) {
          estimate += estimateTokens(texts[end]!);
          end++;
        }
        if (budget) {
          const room = await budget.room();
          if (room < estimate) throw new EmbeddingBudgetError(`the server's token budget for today has ${Math.max(0, Math.floor(room)).toLocaleString('en-US')} tokens left, and the next passages need about ${estimate.toLocaleString('en-US')}`);
        }
        const batch = await request(texts.slice(at, end), { signal });
        calls += 1;
        tokens += batch.tokens;
        await budget?.spend(batch.tokens, model);
        vectors.push(...batch.vectors);
        at = end;
        onBatch?.(at, texts.length);
      }
      return { vectors, tokens, calls };
    },
    async embedQuery(text, signal) {
      try {
        return (await request([text], { signal, timeout: options.queryTimeoutMs ?? 5_000, maxRetries: 0 })).vectors[0];
      } catch {
        return undefined;
      }
    },
  };
}

/** The text embedded for a passage: its document's title and headings give it its context. */
export function embeddingText(title: string, headings: readonly string[], text: string): string {
  return `${[title, ...headings].filter(Boolean).join(' › ')}\n\n${text}`;
}
