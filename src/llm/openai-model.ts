/**
 * The model client: the `openai` SDK pointed at any OpenAI-compatible server, always streaming.
 *
 * - Text arrives through `request.onDelta` as it is written (content and reasoning, in order);
 *   `<think>` blocks are reasoning, and `request.stop` is applied here too, for servers that ignore it.
 * - Time: OPENAI_TIMEOUT_MS bounds the wait for the server to start answering; after that only
 *   silence (OPENAI_IDLE_TIMEOUT_MS without a byte) ends a reply, so a slow model that keeps
 *   writing is never cut off. `request.deadline` bounds everything.
 * - Retries (see retry.ts) only before the server has answered: 429, 5xx and connection failures.
 *   A request is never resent once its reply has started.
 */
import OpenAI from 'openai';
import type { ModelConfig } from '../config.js';
import { ModelError } from '../errors.js';
import type { ChatModel, ModelReply, ModelRequest } from '../agent/types.js';
import { contextTokensFor } from './context-window.js';
import { errorBodyFetch } from './error-body-fetch.js';
import { rejectsStreamOptions, toModelError, type ErrorContext } from './model-errors.js';
import { maxTokensParamFor, streamParams, type MaxTokensParam } from './request-params.js';
import { abortableSleep, retryAfterMs, retryDelay, type RetryPolicy } from './retry.js';
import { streamAttempt, type AttemptProgress } from './stream-attempt.js';

export interface OpenAIModelDeps {
  /** Override fetch (tests, proxies). */
  fetch?: typeof fetch;
}

const RETRYABLE = new Set(['rate-limit', 'server', 'timeout', 'connection']);

/** A ChatModel backed by the OpenAI SDK. */
export class OpenAIChatModel implements ChatModel {
  readonly model: string;
  /** Base URL + `#` + model: what the engine learns about a server is remembered under this. */
  readonly key: string;
  private readonly client: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly firstByteMs: number;
  private readonly idleMs: number;
  private readonly maxTokensParam: MaxTokensParam;
  private readonly defaultMaxTokens?: number;
  private readonly lookupContext: () => ReturnType<typeof contextTokensFor>;
  /** Turned off for good once this server rejects `stream_options`. */
  private streamUsage = true;
  private contextWindow?: Promise<number | undefined>;

  constructor(config: ModelConfig, deps: OpenAIModelDeps = {}) {
    this.model = config.model;
    this.policy = { maxRetries: config.maxRetries, maxWaitMs: config.maxRetryWaitMs };
    this.firstByteMs = config.timeoutMs;
    this.idleMs = config.idleTimeoutMs ?? 30_000;
    this.maxTokensParam = maxTokensParamFor(config.baseURL);
    this.defaultMaxTokens = config.maxTokens;
    const fetchImpl = deps.fetch ?? globalThis.fetch;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      timeout: config.timeoutMs,
      maxRetries: 0,
      fetch: errorBodyFetch(fetchImpl),
    });
    this.key = `${this.client.baseURL}#${config.model}`;
    this.lookupContext = () =>
      contextTokensFor({ model: config.model, baseURL: config.baseURL, apiKey: config.apiKey, configured: config.contextTokens, fetch: fetchImpl });
  }

  /**
   * Complete one chat turn, streaming. Deltas go to `request.onDelta` in order; the reply carries
   * the whole text, reasoning (separate fields and `<think>` blocks, never in `content`), tool calls,
   * the normalized finish reason (`length` when MODEL_MAX_TOKENS cut it, `content_filter`...), and
   * usage from the server's final chunk: 0 where the server reports none.
   */
  async complete(request: ModelRequest): Promise<ModelReply> {
    const errorContext: ErrorContext = { baseURL: this.client.baseURL, hadTools: !!request.tools?.length, firstByteMs: this.firstByteMs };
    for (let attempt = 0; ; attempt++) {
      if ((request.deadline ?? Infinity) <= Date.now()) {
        throw new ModelError('timeout', 'The run ran out of time while waiting for the model server.');
      }
      const progress: AttemptProgress = { started: false };
      try {
        return await streamAttempt(
          {
            client: this.client,
            params: streamParams(request, { model: this.model, maxTokensParam: this.maxTokensParam, defaultMaxTokens: this.defaultMaxTokens, streamUsage: this.streamUsage }),
            request,
            firstByteMs: this.firstByteMs,
            idleMs: this.idleMs,
            errorContext,
          },
          progress,
        );
      } catch (raw) {
        // Once the server has answered, the failure is final: it may have half-written the reply.
        if (progress.started) throw raw;
        if (this.streamUsage && rejectsStreamOptions(raw)) {
          // Ask once more without it; usage then stays 0 for this server.
          this.streamUsage = false;
          attempt--;
          continue;
        }
        const error = ranOutOfTime(toModelError(raw, request.signal, errorContext), request.deadline);
        if (!RETRYABLE.has(error.kind) || attempt >= this.policy.maxRetries) throw error;
        const hint = raw instanceof OpenAI.APIError ? retryAfterMs(raw.headers ?? undefined) : undefined;
        const wait = retryDelay(this.policy, attempt, hint);
        if (wait >= (request.deadline ?? Infinity) - Date.now()) throw error;
        try {
          await abortableSleep(wait, request.signal);
        } catch (reason) {
          throw new ModelError('aborted', 'The request was cancelled.', undefined, { cause: reason });
        }
      }
    }
  }

  /**
   * The model's context window in tokens: MODEL_CONTEXT_TOKENS, else what the server reports
   * (vLLM, llama.cpp, LM Studio), else the built-in table for OpenAI models, else undefined.
   * Asked once per client; later calls reuse the answer.
   */
  contextTokens(): Promise<number | undefined> {
    this.contextWindow ??= this.lookupContext().then((w) => w?.tokens);
    return this.contextWindow;
  }
}

/** A first-byte timeout that was really the run's deadline says so. */
function ranOutOfTime(error: ModelError, deadline: number | undefined): ModelError {
  if (error.kind !== 'timeout' || deadline === undefined || Date.now() < deadline - 5) return error;
  return new ModelError('timeout', 'The run ran out of time while waiting for the model server.', undefined, { cause: error });
}
