import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { clientFor, recording } from './helpers.js';

describe('streamed replies through the real openai SDK', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(async () => {
    expect(server.failures).toEqual([]);
    await server.close();
  });

  it('asks for a stream with usage and passes each piece of text on in order', async () => {
    server.script({ content: 'Paris is the capital.', stream: { chunks: ['Par', 'is is', ' the ', 'capital.'] }, usage: { prompt: 31, completion: 7 } });
    const { request, deltas } = recording();
    const reply = await clientFor(server).complete(request);
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual([
      { kind: 'content', text: 'Par' },
      { kind: 'content', text: 'is is' },
      { kind: 'content', text: ' the ' },
      { kind: 'content', text: 'capital.' },
    ]);
    expect(reply).toMatchObject({ content: 'Paris is the capital.', finishReason: 'stop', toolCalls: [] });
    expect(reply.usage).toEqual({ promptTokens: 31, completionTokens: 7, totalTokens: 38 });
  });

  it('delivers each delta as it arrives, not when the reply is complete', async () => {
    server.script({ content: 'one two three', stream: { chunks: ['one ', 'two ', 'three'], paceMs: 120 } });
    const seen: number[] = [];
    const started = Date.now();
    const { request } = recording({ onDelta: () => seen.push(Date.now() - started) });
    const reply = await clientFor(server).complete(request);
    const finished = Date.now() - started;
    expect(seen).toHaveLength(3);
    expect(finished - seen[0]!).toBeGreaterThanOrEqual(200); // the first word was out two pauses before the end
    expect(reply.content).toBe('one two three');
  });

  it('leaves usage at 0 when the server sends no usage chunk', async () => {
    server.script({ content: 'hi', stream: { usage: 'never' } });
    const reply = await clientFor(server).complete(recording().request);
    expect(reply.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it('assembles tool calls whose name comes once and whose arguments come in pieces', async () => {
    server.script({
      toolCalls: [
        { id: 'call_a', name: 'wikipedia', arguments: { query: 'Marie Curie', language: 'en' } },
        { id: 'call_b', name: 'calculate', arguments: { expression: '2 * (3 + 4)' } },
      ],
      stream: { argumentPieceSize: 3 },
    });
    const { request, deltas } = recording();
    const reply = await clientFor(server).complete(request);
    expect(reply.toolCalls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'wikipedia', arguments: '{"query":"Marie Curie","language":"en"}' } },
      { id: 'call_b', type: 'function', function: { name: 'calculate', arguments: '{"expression":"2 * (3 + 4)"}' } },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
    expect(deltas).toEqual([]);
  });

  it('reports a reply cut at the token limit as length, and a filtered one as content_filter', async () => {
    server.script({ content: 'The history of Rome begins with', finishReason: 'length' }, { content: 'I cannot', finishReason: 'content_filter' });
    const model = clientFor(server);
    expect((await model.complete(recording().request)).finishReason).toBe('length');
    expect((await model.complete(recording().request)).finishReason).toBe('content_filter');
  });

  it("maps a server's own words for the ending onto OpenAI's", async () => {
    server.script({ content: 'cut', finishReason: 'max_tokens' }, { content: 'done', finishReason: 'eos' }, { toolCalls: [{ name: 'calculate', arguments: {} }], finishReason: 'stop' });
    const model = clientFor(server);
    expect((await model.complete(recording().request)).finishReason).toBe('length');
    expect((await model.complete(recording().request)).finishReason).toBe('stop');
    expect((await model.complete(recording().request)).finishReason).toBe('tool_calls');
  });

  it('keeps reasoning fields out of the content and passes them on as reasoning deltas first', async () => {
    server.script(
      { reasoning: 'The user wants a sum. 2 + 3 = 5.', content: 'It is 5.' },
      { reasoning: 'Ollama names the field reasoning.', reasoningField: 'reasoning', content: 'Yes.' },
    );
    const model = clientFor(server);
    const first = recording();
    const reply = await model.complete(first.request);
    expect(reply).toMatchObject({ content: 'It is 5.', reasoning: 'The user wants a sum. 2 + 3 = 5.' });
    const kinds = first.deltas.map((d) => d.kind);
    expect(kinds.indexOf('content')).toBeGreaterThan(kinds.lastIndexOf('reasoning'));
    expect(first.text('reasoning')).toBe('The user wants a sum. 2 + 3 = 5.');
    const second = await model.complete(recording().request);
    expect(second).toMatchObject({ content: 'Yes.', reasoning: 'Ollama names the field reasoning.' });
  });

  it('reads <think> blocks in the content as reasoning, also with the tags split across chunks', async () => {
    server.script({
      content: '<think>Rome was founded in 753 BC.</think>\n\nRome was founded in 753 BC.',
      stream: { chunks: ['<thi', 'nk>Rome was', ' founded in 753 BC.</th', 'ink>', '\n\nRome was ', 'founded in 753 BC.'] },
    });
    const { request, text } = recording();
    const reply = await clientFor(server).complete(request);
    expect(reply.content).toBe('Rome was founded in 753 BC.');
    expect(reply.reasoning).toBe('Rome was founded in 753 BC.');
    expect(text('content')).toBe('Rome was founded in 753 BC.');
    expect(text('content')).not.toContain('think');
    expect(text('reasoning')).toBe('Rome was founded in 753 BC.');
  });

  it('moves reasoning before an orphan </think> (the template opened the tag) out of the finished content', async () => {
    server.script({ content: 'Let me think. Two plus three.</think>\n\nAnswer: 5' });
    const reply = await clientFor(server).complete(recording().request);
    expect(reply.content).toBe('Answer: 5');
    expect(reply.reasoning).toBe('Let me think. Two plus three.');
  });

  it('accepts a plain JSON completion sent in answer to a streamed request', async () => {
    server.script({ content: 'Plain answer.', reasoning: 'quietly', stream: { plainJson: true }, usage: { prompt: 3, completion: 2 } });
    const { request, deltas } = recording();
    const reply = await clientFor(server).complete(request);
    expect(reply).toMatchObject({ content: 'Plain answer.', reasoning: 'quietly', finishReason: 'stop' });
    expect(reply.usage.totalTokens).toBe(5);
    expect(deltas).toEqual([{ kind: 'reasoning', text: 'quietly' }, { kind: 'content', text: 'Plain answer.' }]);
  });

  it('names the server and model in its key', () => {
    expect(clientFor(server, { model: 'qwen2.5:7b' }).key).toBe(`${server.baseURL}#qwen2.5:7b`);
  });

  it('passes an error thrown by onDelta to the caller unchanged and stops reading', async () => {
    server.script({ content: 'abcdefghijklmnopqrstuvwxyz', stream: { chunks: ['abc', 'def', 'ghi'], paceMs: 50 } });
    const boom = new Error('renderer failed');
    const model = clientFor(server);
    await expect(model.complete(recording({ onDelta: () => { throw boom; } }).request)).rejects.toBe(boom);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a server that rejects stream_options', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start({ rejectStreamOptions: true });
  });
  afterEach(async () => {
    await server.close();
  });

  it('is asked again without it once, and never again by the same client', async () => {
    server.script({ content: 'first' }, { content: 'second' });
    const model = clientFor(server, { maxRetries: 0 });
    const first = await model.complete(recording().request);
    expect(first.content).toBe('first');
    expect(first.usage.totalTokens).toBe(0);
    const second = await model.complete(recording().request);
    expect(second.content).toBe('second');
    expect(server.requests.map((r) => r.body.stream_options !== undefined)).toEqual([true, false, false]);
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
  });
});
