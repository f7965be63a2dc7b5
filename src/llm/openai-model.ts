/**
 * The model client: the `openai` SDK pointed at any OpenAI-compatible server, with our own retry
 * loop (see retry.ts) and errors translated into ModelError with a message a user can act on.
 */
import OpenAI from 'openai';
import type { ModelConfig } from '../config.js';
import { ModelError } from '../errors.js';
import type { ChatModel, ModelReply, ModelRequest, ToolCall } from '../agent/types.js';
import { abortableSleep, retryAfterMs, retryDelay, type RetryPolicy } from './retry.js';
import { toModelError } from './model-errors.js';

export interface OpenAIModelDeps {
  /** Override fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** A ChatModel backed by the OpenAI SDK. */
export class OpenAIChatModel implements ChatModel {
  readonly model: string;
  private readonly client: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(config: ModelConfig, deps: OpenAIModelDeps = {}) {
    this.model = config.model;
    this.policy = { maxRetries: config.maxRetries, maxWaitMs: config.maxRetryWaitMs };
    this.timeoutMs = config.timeoutMs;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      timeout: config.timeoutMs,
      maxRetries: 0,
      fetch: deps.fetch,
    });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    for (let attempt = 0; ; attempt++) {
      const remaining = (request.deadline ?? Infinity) - Date.now();
      if (remaining <= 0) throw new ModelError('timeout', 'The run ran out of time while waiting for the model server.');
      try {
        return await this.once(request, remaining < this.timeoutMs ? remaining : this.timeoutMs);
      } catch (raw) {
        const error = toModelError(raw, request.signal, this.client.baseURL);
        const retryable = ['rate-limit', 'server', 'timeout', 'connection'].includes(error.kind);
        if (!retryable || attempt >= this.policy.maxRetries) throw error;
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

  private once(request: ModelRequest, timeoutMs: number): Promise<ModelReply> {
    const hasTools = request.tools !== undefined && request.tools.length > 0;
    // A plain promise chain, not another async frame: this is on every step's path.
    return this.client.chat.completions
      .create(
        {
          model: this.model,
          messages: request.messages,
          ...(hasTools ? { tools: request.tools } : {}),
          ...(hasTools && request.toolChoice ? { tool_choice: request.toolChoice } : {}),
          ...(request.stop?.length ? { stop: request.stop } : {}),
        },
        // Per-request timeout: what is left of the run's time bounds each attempt, with no extra timer of ours.
        { signal: request.signal, timeout: timeoutMs },
      )
      .then(toReply);
  }
}

/** The SDK's completion as the engine's ModelReply. */
function toReply(completion: OpenAI.ChatCompletion): ModelReply {
  const choice = completion.choices?.[0];
  if (!choice) {
    throw new ModelError('server', 'The model server returned no choices. Check that OPENAI_MODEL is right.');
  }
  const message = choice.message as typeof choice.message & { reasoning_content?: string; reasoning?: string };
  const toolCalls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    toolCalls.push({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments ?? '' } });
  }
  return {
    content: message.content ?? '',
    reasoning: message.reasoning_content ?? message.reasoning ?? undefined,
    toolCalls,
    finishReason: choice.finish_reason ?? undefined,
    usage: {
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      totalTokens: completion.usage?.total_tokens ?? 0,
    },
  };
}
