import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { collect, drain, engineFrom, modelFor, ofType } from './helpers.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await server.close();
});

const question = [{ role: 'user' as const, content: 'Question?' }];

describe('runs under failure', () => {
  it('stops promptly when aborted in the middle of a tool that ignores its signal', async () => {
    const { tools } = makeTestTools();
    server.script({ toolCalls: [{ name: 'hang', arguments: {} }] });
    const controller = new AbortController();
    const { result, events } = await collect(
      { model: modelFor(server), tools, messages: question, protocol: 'native', signal: controller.signal, toolTimeoutMs: 60_000 },
      (e) => e.type === 'action' && setTimeout(() => controller.abort(), 20),
    );
    expect(result.reason).toBe('aborted');
    expect(result.error?.message).toBe('The run was stopped.');
    expect(ofType(events, 'run-end')[0]!.reason).toBe('aborted');
    // The unfinished tool call is not stored: the transcript stays a valid sequence.
    expect(result.messages).toEqual([]);
  });

  it('stops a tool at its timeout and tells the model', async () => {
    const { tools } = makeTestTools();
    server.script({ toolCalls: [{ name: 'hang', arguments: {} }] }, { content: 'It timed out.' });
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native', toolTimeoutMs: 100 });
    expect(ofType(events, 'observation')[0]!.output).toBe('Error: hang took longer than 100 ms and was stopped.');
    expect(result.reason).toBe('answer');
  });

  it('retries a 429 and then succeeds', async () => {
    const { tools } = makeTestTools();
    server.script({ status: 429, error: 'slow down', headers: { 'retry-after': '0' } }, { content: 'Fine.' });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });
    expect(result).toMatchObject({ reason: 'answer', answer: 'Fine.' });
    expect(server.requests).toHaveLength(2);
  });

  it('caps a long Retry-After instead of waiting it out', async () => {
    const { tools } = makeTestTools();
    // Ten minutes asked, past the test's own timeout: waited out, the test would time out.
    server.script({ status: 429, error: 'slow down', headers: { 'retry-after': '600' } }, { content: 'Fine.' });
    const { result } = await collect({ model: modelFor(server, { maxRetryWaitMs: 100 }), tools, messages: question, protocol: 'native' });
    expect(result.reason).toBe('answer');
    // The retry did wait, the 100 ms of the cap at least.
    const waited = server.requests[1]!.at - server.requests[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(90);
  });

  it('ends during a retry wait as soon as the run is aborted', async () => {
    const { tools } = makeTestTools();
    // Ten minutes asked and allowed (the run's own deadline further still, or the engine would not
    // start a wait it cannot finish), past the test's timeout: only the abort can end the wait.
    server.script({ status: 429, error: 'slow down', headers: { 'retry-after': '600' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const { result } = await collect({
      model: modelFor(server, { maxRetryWaitMs: 600_000 }), tools, messages: question, protocol: 'native', signal: controller.signal, runTimeoutMs: 3_600_000,
    });
    expect(result.reason).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after repeated 500s with a clear error', async () => {
    const { tools } = makeTestTools();
    for (let i = 0; i < 3; i++) server.script({ status: 500, error: 'upstream exploded' });
    const { result, events } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });
    expect(server.requests).toHaveLength(3); // first try + 2 retries
    expect(result.reason).toBe('error');
    expect(result.error).toEqual({ code: 'model-server', message: 'The model server failed (500): upstream exploded.' });
    expect(ofType(events, 'error')[0]!.message).toContain('upstream exploded');
  });

  it('says plainly when the model server cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { tools } = makeTestTools();
    const model = modelFor(server, { baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
    const { result } = await collect({ model, tools, messages: question, protocol: 'native' });
    expect(result.reason).toBe('error');
    expect(result.error?.message).toMatch(/Could not reach the model server at http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('does not retry a rejected API key and says which setting to check', async () => {
    const { tools } = makeTestTools();
    server.script({ status: 401, error: 'Incorrect API key provided' });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native' });
    expect(server.requests).toHaveLength(1);
    expect(result.error?.message).toContain('Check OPENAI_API_KEY');
  });

  it('falls back from native to text when the server rejects tools, and remembers it', async () => {
    const { tools, calls } = makeTestTools();
    const model = modelFor(server);
    server.script(
      { status: 400, error: 'registry.ollama.ai/library/gemma:2b does not support tools' },
      { content: 'Thought: echo\nAction: echo: hi' },
      { content: 'Answer: hi' },
      { content: 'Answer: second run' },
    );
    const engine = engineFrom({ model, tools, messages: question });
    const { events, result } = await drain(engine.run({ messages: question }));
    expect(ofType(events, 'protocol-fallback')[0]).toMatchObject({ from: 'native', to: 'text' });
    // The step is asked again on the text protocol, and announced once.
    expect(ofType(events, 'step-start').map((e) => e.step)).toEqual([1, 2]);
    expect(server.requests[0]!.body.tools).toBeDefined();
    expect(server.requests[1]!.body.tools).toBeUndefined();
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({ reason: 'answer', protocol: 'text', steps: 2 });

    const again = await drain(engine.run({ messages: question }));
    expect(server.requests[3]!.body.tools).toBeUndefined();
    expect(again.result.answer).toBe('second run');
  });

  it("falls back to text on OpenAI's own refusal, read from its code and param", async () => {
    // OpenAI's body for a model without tool calling: the words alone are not in any pattern; the
    // code (unsupported_parameter) and param (tools) say what it is.
    const { tools } = makeTestTools();
    server.script(
      { status: 400, error: "Unsupported parameter: 'tools' is not supported with this model.", type: 'invalid_request_error', code: 'unsupported_parameter', param: 'tools' },
      { content: 'Answer: 375' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools, messages: question });
    expect(ofType(events, 'protocol-fallback')[0]).toMatchObject({ from: 'native', to: 'text' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.tools).toBeUndefined();
    expect(result).toMatchObject({ reason: 'answer', protocol: 'text', answer: '375' });
  });

  it('ends with a clear message when the whole run takes too long', async () => {
    const { tools } = makeTestTools();
    server.script({ content: 'late', delayMs: 2_000 });
    const { result } = await collect({ model: modelFor(server), tools, messages: question, protocol: 'native', runTimeoutMs: 200 });
    expect(result.reason).toBe('error');
    expect(result.error?.code).toBe('run-timeout');
  });

  it('asks before each tool in manual mode: run it, inject an observation, or stop', async () => {
    const { tools, calls } = makeTestTools();
    server.script(
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { toolCalls: [{ name: 'add', arguments: { a: 3, b: 3 } }] },
    );
    const decisions = [{ kind: 'run' as const }, { kind: 'observe' as const, text: 'forty-two' }, { kind: 'stop' as const }];
    const { events, result } = await collect({
      model: modelFor(server), tools, messages: question, protocol: 'native', beforeTool: async () => decisions.shift()!,
    });
    expect(calls).toEqual([{ tool: 'add', args: { a: 1, b: 1 } }]);
    expect(ofType(events, 'observation').map((o) => o.output)).toEqual(['2', 'forty-two']);
    expect(result.reason).toBe('aborted');
  });
});
