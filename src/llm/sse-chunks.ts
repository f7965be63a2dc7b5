/**
 * The chunks of a streamed reply, read from its server-sent events with `eventsource-parser`: bytes in,
 * each `data:` event's JSON handed to `onChunk` at once, in the same call that fed the bytes. The SDK's
 * own reader (`Stream.fromSSEResponse`) passes every event through three nested async generators and
 * copies the buffered bytes at each one; this makes one await per network read, which is most of what
 * separated the engine's steps from the SDK's own minimal loop (see docs/performance.md, *The engine*).
 *
 * What the SDK does is kept: `[DONE]` ends the reply (the rest is read, not used), and an event whose
 * JSON carries `error` (an error sent inside a 200 stream) is thrown as the SDK's `APIError`. Where it
 * differs it says more: an `event: error` is an error whatever its JSON holds, an event that is not JSON
 * is a server error quoting it (the SDK throws a bare SyntaxError), one event is capped at
 * TEXT_CAPS.serverEvent, and a last event without its blank line is read.
 */
import OpenAI from 'openai';
import { createParser } from 'eventsource-parser';
import { ModelError } from '../errors.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/**
 * Read `body` to its end, or until `onChunk` returns true (the caller wants no more).
 * Throws what `onChunk` throws, an `APIError` for an error event, a ModelError for text that is not an
 * event stream of JSON; returns true when it stopped before the body's end (the caller cancels the body).
 */
export async function readSseChunks(
  body: AsyncIterable<Uint8Array>,
  headers: Headers,
  onChunk: (chunk: OpenAI.ChatCompletionChunk) => boolean,
): Promise<boolean> {
  // After [DONE] the rest is ignored but still read to its end, so the connection can be used again.
  let done = false;
  let stopped = false; // onChunk wants no more: the caller cancels the body
  let failure: unknown;
  const parser = createParser({
    maxBufferSize: TEXT_CAPS.serverEvent,
    onEvent: ({ event, data }) => {
      if (done || stopped || failure !== undefined) return;
      if (data.startsWith('[DONE]')) {
        done = true;
        return;
      }
      let chunk: OpenAI.ChatCompletionChunk & { error?: unknown };
      try {
        chunk = JSON.parse(data) as typeof chunk;
      } catch (error) {
        failure = new ModelError('server', `The model server sent a stream event that is not JSON: ${data.slice(0, TEXT_CAPS.echo)}`, undefined, { cause: error });
        return;
      }
      if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
        failure = new ModelError('server', `The model server sent a stream event that is not a JSON object: ${data.slice(0, TEXT_CAPS.echo)}`);
        return;
      }
      // An `event: error` whose JSON has no `error` field is an error too (the SDK would take it for a chunk).
      if (chunk.error || event === 'error') {
        failure = new OpenAI.APIError(undefined, (chunk.error ?? chunk) as object, undefined, headers);
        return;
      }
      try {
        if (onChunk(chunk)) stopped = true;
      } catch (error) {
        failure = error;
      }
    },
    onError: (error) => {
      // Unknown fields and bad `retry:` values are ignored, as the event-stream standard says; only an
      // event that never ends is a failure.
      if (error.type === 'max-buffer-size-exceeded') {
        failure ??= new ModelError('server', `The model server sent one stream event of more than ${TEXT_CAPS.serverEvent} characters without ending it.`);
      }
    },
  });
  const text = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(text.decode(bytes, { stream: true }));
    if (failure !== undefined) throw failure;
    if (stopped) return true;
  }
  // A last event the server did not end with its blank line is read too (the SDK's reader drops it).
  parser.feed(`${text.decode()}\n\n`);
  if (failure !== undefined) throw failure;
  return false;
}
