/**
 * Translate whatever the SDK threw into a ModelError whose message says what happened and what to do.
 */
import OpenAI from 'openai';
import { ModelError } from '../errors.js';

// Servers word "this model cannot do tool calling" differently (Ollama: "does not support tools";
// vLLM: "auto tool choice requires --enable-auto-tool-choice"; llama.cpp: "tools param requires --jinja").
const TOOLS_UNSUPPORTED = /\btools?\b|tool_choice|function.?call/i;

/** Map an SDK error (or anything thrown) to a ModelError. */
export function toModelError(error: unknown, signal: AbortSignal | undefined, baseURL: string): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new ModelError('aborted', 'The request was cancelled.', undefined, { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      'timeout',
      'The model server took too long to answer (OPENAI_TIMEOUT_MS). It may be overloaded; try again.',
      undefined,
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelError(
      'connection',
      `Could not reach the model server at ${baseURL}. Is it running, and is OPENAI_BASE_URL right?`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    const detail = serverMessage(error);
    if (status === 429) {
      return new ModelError('rate-limit', `The model server is rate limiting us (429): ${detail}. Try again shortly.`, status, { cause: error });
    }
    if (status === 401 || status === 403) {
      return new ModelError('auth', `The model server refused our credentials (${status}): ${detail}. Check OPENAI_API_KEY.`, status, { cause: error });
    }
    if (status !== undefined && [400, 404, 422, 500, 501].includes(status) && TOOLS_UNSUPPORTED.test(detail)) {
      return new ModelError('tools-unsupported', `The model server does not accept tool calling: ${detail}`, status, { cause: error });
    }
    if (status !== undefined && status >= 500) {
      return new ModelError('server', `The model server failed (${status}): ${detail}.`, status, { cause: error });
    }
    return new ModelError('bad-request', `The model server rejected the request (${status}): ${detail}`, status, { cause: error });
  }
  return new ModelError('server', `Unexpected error talking to the model server: ${String(error)}`, undefined, { cause: error });
}

function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : error.message;
  return text.replace(/\s+/g, ' ').slice(0, 300);
}
