/**
 * Translate whatever the SDK threw into a ModelError whose message says what happened and what to do.
 * Servers word the same refusal differently; each wording below is one a real server sends (the
 * tests quote them with their sources).
 */
import OpenAI from 'openai';
import { ModelError } from '../errors.js';
import { contextLengthMessage, isContextLength, isToolsUnsupported, quotaMessage } from './server-wordings.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

export interface ErrorContext {
  baseURL: string;
  /** The request offered tools: a template that fails to render them means "no tools here". */
  hadTools?: boolean;
  /** OPENAI_TIMEOUT_MS, named in the message when the server never started answering. */
  firstByteMs?: number;
}

/** What a server said, from an SDK error (HTTP status error or an error event inside a stream). */
export interface ServerError {
  status?: number;
  message: string;
  code?: string;
  type?: string;
  /** The request field the server objects to (OpenAI sends it with `unsupported_parameter`). */
  param?: string;
}

/** Map an SDK error (or anything thrown) to a ModelError. */
export function toModelError(error: unknown, signal: AbortSignal | undefined, context: ErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new ModelError('aborted', 'The request was cancelled.', undefined, { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    const limit = context.firstByteMs ? ` (OPENAI_TIMEOUT_MS=${context.firstByteMs})` : ' (OPENAI_TIMEOUT_MS)';
    return new ModelError(
      'timeout',
      `The model server did not start answering in time${limit}. It may be overloaded, or still reading a long prompt on a slow machine: try again, or raise OPENAI_TIMEOUT_MS.`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelError(
      'connection',
      `Could not reach the model server at ${context.baseURL}. Is it running, and is OPENAI_BASE_URL right?`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIError) return fromServerError(serverError(error), context, error);
  return new ModelError('server', `Unexpected error talking to the model server: ${String(error)}`, undefined, { cause: error });
}

/** Classify what a server said. Also used for error events that arrive inside a stream (no status). */
export function fromServerError(said: ServerError, context: ErrorContext, cause?: unknown): ModelError {
  const { status, message: detail } = said;
  const where = status === undefined ? 'while answering' : `(${status})`;
  if (status === 429 && (said.code === 'insufficient_quota' || said.type === 'insufficient_quota')) {
    return new ModelError('quota', quotaMessage(detail), status, { cause });
  }
  if (status !== 429 && status !== 401 && status !== 403 && isContextLength(said)) {
    return new ModelError('context-length', contextLengthMessage(detail), status, { cause });
  }
  if (status === 429) {
    return new ModelError('rate-limit', `The model server is rate limiting us (429): ${detail}. Try again shortly.`, status, { cause });
  }
  if (status === 401 || status === 403) {
    return new ModelError('auth', `The model server refused our credentials (${status}): ${detail}. Check OPENAI_API_KEY.`, status, { cause });
  }
  if ((status === undefined || [400, 404, 422, 500, 501].includes(status)) && isToolsUnsupported(said, context.hadTools ?? false)) {
    return new ModelError('tools-unsupported', `The model server does not accept tool calling: ${detail}`, status, { cause });
  }
  if (status === undefined) {
    return new ModelError('server', `The model server reported an error ${where}: ${detail}`, status, { cause });
  }
  if (status >= 500) {
    return new ModelError('server', `The model server failed (${status}): ${detail}.`, status, { cause });
  }
  return new ModelError('bad-request', `The model server rejected the request (${status}): ${detail}`, status, { cause });
}

/** The server's own words from an SDK error, whatever shape its body had. */
export function serverError(error: InstanceType<typeof OpenAI.APIError>): ServerError {
  const body = error.error as { message?: unknown; code?: unknown; type?: unknown; param?: unknown } | string | undefined;
  let text: string;
  if (typeof body === 'string') text = body;
  else if (typeof body?.message === 'string') text = body.message;
  else text = error.message;
  const field = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    status: error.status,
    message: text.replace(/\s+/g, ' ').trim().slice(0, TEXT_CAPS.serverMessage),
    code: field(error.code) ?? field(typeof body === 'object' ? body?.code : undefined),
    type: field(error.type) ?? field(typeof body === 'object' ? body?.type : undefined),
    param: field(error.param) ?? field(typeof body === 'object' ? body?.param : undefined),
  };
}

/** A 400 that names `stream_options`: the server does not know it (older gateways, some proxies). */
export function rejectsStreamOptions(error: unknown): boolean {
  if (!(error instanceof OpenAI.APIError) || (error.status !== 400 && error.status !== 422)) return false;
  return error.param === 'stream_options' || /stream_options/.test(serverError(error).message);
}
