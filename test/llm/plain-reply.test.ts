/**
 * Some servers answer a streamed request with one plain JSON completion. It is taken as it is, and the
 * same time rules hold while it arrives: a body that stalls half-written ends with the idle timeout,
 * the connection closed, not a hang.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { failure, recording } from './helpers.js';

const completion = JSON.stringify({
  id: 'x', object: 'chat.completion', created: 0, model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Five, in one piece.' } }],
  usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
});

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A server that writes `first`, then (if `stallMs`) waits that long before the rest. */
async function start(first: string, rest: string, stallMs = 0): Promise<{ model: OpenAIChatModel; closed: () => boolean }> {
  let closedEarly = false;
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(first);
      res.on('close', () => (closedEarly ||= !res.writableFinished));
      setTimeout(() => res.end(rest), stallMs).unref();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const model = new OpenAIChatModel({ apiKey: 'k', baseURL, model: 'm', timeoutMs: 2_000, idleTimeoutMs: 300, maxRetries: 0, maxRetryWaitMs: 10 });
  return { model, closed: () => closedEarly };
}

it('takes a plain completion sent in answer to a streamed request', async () => {
  const { model } = await start(completion.slice(0, 40), completion.slice(40));
  const { request, text } = recording();
  const reply = await model.complete(request);
  expect(reply.content).toBe('Five, in one piece.');
  expect(text('content')).toBe('Five, in one piece.');
  expect(reply.usage.totalTokens).toBe(11);
});

it('ends a plain completion that stalls half-written with the idle timeout, and closes the connection', async () => {
  const { model, closed } = await start(completion.slice(0, 40), completion.slice(40), 5_000);
  // The rest comes after 5 s: only the 300 ms idle limit (named below, not the 2 s whole-request one) fails it.
  const error = await failure(model.complete(recording().request));
  expect(error.kind).toBe('timeout');
  expect(error.message).toMatch(/OPENAI_IDLE_TIMEOUT_MS/);
  for (let waited = 0; !closed() && waited < 2_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  expect(closed()).toBe(true);
});
