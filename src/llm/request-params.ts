/**
 * The request body for one streamed chat completion, in the dialect the server expects.
 */
import type OpenAI from 'openai';
import type { ModelRequest } from '../agent/types.js';

/** The names servers give the reply limit. */
export type MaxTokensParam = 'max_completion_tokens' | 'max_tokens';

/**
 * OpenAI itself wants `max_completion_tokens` (its reasoning models refuse `max_tokens`); every other
 * OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, most gateways) knows `max_tokens`,
 * and several ignore or reject the newer name.
 */
export function maxTokensParamFor(baseURL: string | undefined): MaxTokensParam {
  if (!baseURL) return 'max_completion_tokens';
  try {
    return new URL(baseURL).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  } catch {
    return 'max_tokens';
  }
}

/** Per-client choices that shape every request body. */
export interface ParamOptions {
  model: string;
  maxTokensParam: MaxTokensParam;
  /** Used when the request names no limit (MODEL_MAX_TOKENS). */
  defaultMaxTokens?: number;
  /** Ask for a final usage chunk; off once the server has rejected `stream_options`. */
  streamUsage: boolean;
}

/** The streamed request body: messages, tools, stop sequences and the reply limit under the server's name for it. */
export function streamParams(request: ModelRequest, options: ParamOptions): OpenAI.ChatCompletionCreateParamsStreaming {
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  // Fields set one by one rather than spread from conditional objects: this runs for every step.
  const params: OpenAI.ChatCompletionCreateParamsStreaming = { model: options.model, messages: request.messages, stream: true };
  if (options.streamUsage) params.stream_options = { include_usage: true };
  if (hasTools) params.tools = request.tools;
  if (hasTools && request.toolChoice) params.tool_choice = request.toolChoice;
  if (request.stop?.length) params.stop = request.stop;
  if (maxTokens !== undefined) params[options.maxTokensParam] = maxTokens;
  return params;
}
