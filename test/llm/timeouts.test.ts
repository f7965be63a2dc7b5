import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { clientFor, recording, failure } from './helpers.js';

// Scaled down: the old whole-request limit (OPENAI_TIMEOUT_MS, 60 s) becomes 400 ms, the idle limit 300 ms.
const OLD_LIMIT_MS = 400;
const IDLE_MS = 300;

describe('time limits on a streamed reply', () => {
  let server: FakeOpenAIServer;
  /** The client closed the connection before the reply was all sent. */
  const waitForAbort = async () => {
    for (let waited = 0; server.aborted === 0 && waited < 3_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(server.aborted).toBe(1);
  };
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('lets a slow model that keeps writing finish, however long it takes, with one request', async () => {
    const words = Array.from({ length: 10 }, (_, i) => `word${i} `);
    server.script({ content: words.join(''), stream: { chunks: words, paceMs: 90 } });
    // The idle limit sits well above the pace, so a busy test machine cannot turn a pause into silence.
    const model = clientFor(server, { timeoutMs: OLD_LIMIT_MS, idleTimeoutMs: 1_000, maxRetries: 2 });
    const started = Date.now();
    const reply = await model.complete(recording().request);
    expect(Date.now() - started).toBeGreaterThan(OLD_LIMIT_MS * 2);
    expect(reply.content).toBe(words.join(''));
    expect(server.requests).toHaveLength(1);
  });

  it('fails fast and clearly when a server that has answered goes silent before the first token, and does not resend', async () => {
    server.script({ content: 'too late', stream: { firstEventDelayMs: 5_000 } }, { content: 'never asked' });
    const model = clientFor(server, { idleTimeoutMs: IDLE_MS, maxRetries: 2 });
    // The first event comes after 5 s: only the 0.3 s idle limit the message names ends the wait.
    const error = await failure(model.complete(recording().request));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/sent nothing for 0\.3 s.*OPENAI_IDLE_TIMEOUT_MS=300.*not resent/);
    expect(server.requests).toHaveLength(1);
    expect(server.pending).toBe(1);
  });

  it('fails fast when the server stops in the middle of a reply, keeping nothing and resending nothing', async () => {
    server.script({ content: 'The answer is forty-two.', stream: { chunks: ['The answer ', 'is forty-two.'], pause: { beforeEvent: 2, ms: 5_000 } } });
    const model = clientFor(server, { idleTimeoutMs: IDLE_MS, maxRetries: 2 });
    const { request, deltas } = recording();
    const error = await failure(model.complete(request));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/in the middle of it/);
    expect(deltas).toEqual([{ kind: 'content', text: 'The answer ' }]);
    expect(server.requests).toHaveLength(1);
    // The connection is closed, so the server stops writing a reply nobody reads.
    await waitForAbort();
  });

  it('counts keep-alive comments as signs of life: a server that pings while it thinks is not cut off', async () => {
    server.script({ content: 'Thought it through.', stream: { firstEventDelayMs: 700, pause: { beforeEvent: 2, ms: 700 }, pingEveryMs: 100 } });
    const reply = await clientFor(server, { idleTimeoutMs: IDLE_MS }).complete(recording().request);
    expect(reply.content).toBe('Thought it through.');
    expect(server.requests).toHaveLength(1);
  });

  it('does not resend when the connection breaks after the server started answering', async () => {
    server.script({ content: 'half of it', stream: { chunks: ['half ', 'of it'], dropBeforeEvent: 2 } }, { content: 'never asked' });
    const error = await failure(clientFor(server, { maxRetries: 2 }).complete(recording().request));
    expect(error.kind).toBe('connection');
    expect(error.message).toMatch(/broke while it was writing its reply.*not resent/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a server that never started answering within OPENAI_TIMEOUT_MS', async () => {
    server.script({ content: 'stuck', delayMs: 2_000 }, { content: 'second try' });
    const model = clientFor(server, { timeoutMs: OLD_LIMIT_MS, idleTimeoutMs: IDLE_MS, maxRetries: 1 });
    const reply = await model.complete(recording().request);
    expect(reply.content).toBe('second try');
    expect(server.requests).toHaveLength(2);
  });

  it('names OPENAI_TIMEOUT_MS when the server never starts answering', async () => {
    server.script({ content: 'stuck', delayMs: 2_000 });
    const error = await failure(clientFor(server, { timeoutMs: OLD_LIMIT_MS, maxRetries: 0 }).complete(recording().request));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/did not start answering.*OPENAI_TIMEOUT_MS=400/);
  });

  it("ends a reply that is still being written when the run's deadline passes", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i} `);
    server.script({ content: words.join(''), stream: { chunks: words, paceMs: 50 } });
    const model = clientFor(server, { idleTimeoutMs: IDLE_MS });
    // The reply takes 2 s to write and never goes quiet: only the run's deadline ends it.
    const error = await failure(model.complete(recording({ deadline: Date.now() + 400 }).request));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/ran out of time while the model server was still writing/);
    expect(server.requests).toHaveLength(1);
    // The connection is closed, so the server stops writing a reply nobody reads.
    await waitForAbort();
  });

  it('stops reading when the caller aborts mid-reply', async () => {
    server.script({ content: 'a b c d e f', stream: { chunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], paceMs: 100 } });
    const controller = new AbortController();
    const { request } = recording({ signal: controller.signal, onDelta: () => controller.abort() });
    const error = await failure(clientFor(server).complete(request));
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(1);
    await waitForAbort();
  });
});
