/**
 * One streamed request: send, wait (at most OPENAI_TIMEOUT_MS) for the server to start answering,
 * then read the reply for as long as it keeps coming. Silence longer than OPENAI_IDLE_TIMEOUT_MS,
 * the run's deadline, a broken connection or an error event end it with a ModelError; once the
 * server has started answering such a failure is final (`progress.started`): the caller must not
 * resend a request the server may have half-answered.
 */
import OpenAI from 'openai';
import { ModelError } from '../errors.js';
import type { ModelReply, ModelRequest } from '../agent/types.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { fromServerError, serverError, type ErrorContext } from './model-errors.js';
import { DeltaCallbackError, ReplyBuilder } from './reply-builder.js';
import { normalizeErrorBody } from './error-body-fetch.js';
import { readSseChunks } from './sse-chunks.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** What one attempt needs: the SDK client, the body to send, the caller's request and the time limits. */
export interface AttemptInput {
  client: OpenAI;
  params: OpenAI.ChatCompletionCreateParamsStreaming;
  request: ModelRequest;
  firstByteMs: number;
  idleMs: number;
  errorContext: ErrorContext;
}

/** Set by the attempt, read by the retry loop. */
export interface AttemptProgress {
  /** The server answered (status 200): from here on a failure is never resent. */
  started: boolean;
}

/** Send one request and read its reply. Errors before the server answers are the SDK's, raw. */
export async function streamAttempt(input: AttemptInput, progress: AttemptProgress): Promise<ModelReply> {
  const { request } = input;
  const remaining = (request.deadline ?? Infinity) - Date.now();
  // The caller's signal goes to the SDK as it is, which links it to the request's own controller. No
  // controller of ours: each AbortController costs several microseconds on every step (Node 20), and
  // the watchdog ends a reply by cancelling its body instead.
  const response = await input.client.chat.completions
    .create(input.params, { signal: request.signal, timeout: Math.max(1, Math.min(input.firstByteMs, remaining)) })
    .asResponse();
  progress.started = true;
  return await readReply(response, input);
}

async function readReply(response: Response, input: AttemptInput): Promise<ModelReply> {
  const { request } = input;
  const builder = new ReplyBuilder(request.stop, request.onDelta);
  const body = response.body ? new TouchedBody(response.body) : undefined;
  // Firing cancels the body: the pending read ends, the connection is closed, and the check after the loop says why.
  const watchdog = new IdleWatchdog(input.idleMs, request.deadline, () => body?.cancel());
  try {
    if (!body) throw new ModelError('server', 'The model server answered with an empty body.');
    if (response.headers.get('content-type')?.includes('text/event-stream')) {
      const pushed = (chunk: OpenAI.ChatCompletionChunk) => {
        builder.push(chunk);
        return builder.stopped;
      };
      // Stopped by a stop sequence: the rest is text we would cut anyway, so stop the server writing it.
      if (await readSseChunks(body.chunks(() => watchdog.touch()), response.headers, pushed)) body.cancel();
    } else {
      // Some servers answer a streamed request with one plain completion: take it as it is, read
      // through the same chunks, so the watchdog sees it arrive and can end it.
      const parts: Uint8Array[] = [];
      for await (const part of body.chunks(() => watchdog.touch())) parts.push(part);
      if (!watchdog.fired) builder.pushCompletion(parseCompletion(Buffer.concat(parts).toString('utf8'), input.errorContext));
    }
  } catch (error) {
    body?.cancel();
    throw failure(error, watchdog, builder, input);
  } finally {
    watchdog.stop();
  }
  // A cancelled body or an aborted signal ends the stream quietly: say why it ended.
  if (watchdog.fired || request.signal?.aborted) throw failure(undefined, watchdog, builder, input);
  return builder.finishReply();
}

/**
 * A reply's body, read chunk by chunk with each chunk reported as it arrives: every byte is a sign of
 * life, SSE comments (the keep-alive pings some servers send while reading a long prompt) included.
 * An iterator written by hand: lighter than a TransformStream or an async generator, each of which adds
 * promise hops to every chunk of every step.
 */
class TouchedBody {
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private cancelled = false;

  constructor(private readonly body: ReadableStream<Uint8Array>) {}

  chunks(onBytes: () => void): AsyncIterable<Uint8Array> {
    const done: IteratorResult<Uint8Array> = { done: true, value: undefined };
    const release = () => {
      this.reader?.releaseLock();
      this.reader = undefined;
    };
    return {
      [Symbol.asyncIterator]: () => {
        if (this.cancelled) return { next: () => Promise.resolve(done) };
        const reader = (this.reader = this.body.getReader());
        return {
          next: () =>
            reader.read().then(
              (result) => {
                if (result.done) release();
                else onBytes();
                return result;
              },
              (error: unknown) => {
                release();
                throw error;
              },
            ),
          // The reading stopped early (a stop sequence, an error in the loop): let the body go.
          return: () => {
            release();
            return Promise.resolve(done);
          },
        };
      },
    };
  }

  /** Stop reading and close the connection; a pending read ends as if the body had ended. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    (this.reader ?? this.body).cancel().catch(() => undefined);
  }
}

function parseCompletion(text: string, context: ErrorContext): OpenAI.ChatCompletion {
  let body: OpenAI.ChatCompletion & { error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch (error) {
    throw new ModelError('server', `The model server sent a reply that is neither a stream nor JSON: ${text.slice(0, TEXT_CAPS.echo)}`, undefined, { cause: error });
  }
  if (body.error) {
    // An error sent with status 200, as some gateways do.
    const said = (JSON.parse(normalizeErrorBody(text)) as { error: { message?: unknown; code?: unknown; type?: unknown; param?: unknown } }).error;
    const field = (v: unknown) => (typeof v === 'string' ? v : undefined);
    throw fromServerError({ message: String(said.message ?? text.slice(0, TEXT_CAPS.serverBody)), code: field(said.code), type: field(said.type), param: field(said.param) }, context);
  }
  if (!body.choices?.length) {
    throw new ModelError('server', 'The model server returned no choices. Check that OPENAI_MODEL is right.');
  }
  return body;
}

/** Why a reply that had started failed, as a ModelError that says it was not resent. */
function failure(error: unknown, watchdog: IdleWatchdog, builder: ReplyBuilder, input: AttemptInput): unknown {
  if (error instanceof DeltaCallbackError) return error.original;
  if (error instanceof ModelError) return error;
  const cause = { cause: error };
  if (watchdog.fired === 'deadline') {
    return new ModelError('timeout', 'The run ran out of time while the model server was still writing its reply.', undefined, cause);
  }
  if (input.request.signal?.aborted) return new ModelError('aborted', 'The request was cancelled.', undefined, cause);
  const seconds = Math.round(input.idleMs / 100) / 10;
  if (watchdog.fired === 'idle') {
    const what = builder.started
      ? `stopped sending its reply for ${seconds} s in the middle of it`
      : `accepted the request but then sent nothing for ${seconds} s`;
    return new ModelError(
      'timeout',
      `The model server ${what} (OPENAI_IDLE_TIMEOUT_MS=${input.idleMs}). The request was not resent, because the server had started answering; if it is only slow, raise OPENAI_IDLE_TIMEOUT_MS.`,
      undefined,
      cause,
    );
  }
  if (error instanceof OpenAI.APIError) {
    // An error event inside the stream (context too long, a template that cannot render tools...).
    return fromServerError(serverError(error), input.errorContext, error);
  }
  return new ModelError(
    'connection',
    `The connection to the model server broke while it was writing its reply (${error instanceof Error ? error.message : String(error)}). The request was not resent, because the server had started answering; try again.`,
    undefined,
    cause,
  );
}
