import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/agent/engine.js';
import type { ChatMessage } from '../../src/agent/types.js';
import { ModelError } from '../../src/errors.js';
import { contextFit, TokenCounter } from '../../src/state/index.js';
import { makeTestTools } from '../fakes/test-tools.js';
import { ScriptedModel } from '../fakes/scripted-model.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { drain, modelFor } from './helpers.js';

const counter = new TokenCounter('o200k_base');

/** A thread with `turns` old exchanges of about 200 tokens each, then the new question. */
function longThread(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    history.push({ role: 'user', content: `Old question ${i}: ${'word '.repeat(100)}` }, { role: 'assistant', content: `Old answer ${i}: ${'text '.repeat(100)}` });
  }
  history.push({ role: 'user', content: 'And now, what is 2 + 3?' });
  return history;
}

function engineFor(model: ScriptedModel, windowTokens: number) {
  return createEngine({
    model,
    tools: makeTestTools().tools,
    defaults: { protocol: 'native', maxTokens: 256 },
    fitContext: contextFit({ windowTokens, counter }),
  });
}

const sentTokens = (messages: ChatMessage[]) => messages.reduce((n, m) => n + counter.message(m), 0);

describe('a request that always fits the context window', () => {
  it('trims a history that would overflow before sending: the newest question and the system prompt stay', async () => {
    const model = new ScriptedModel().script({ content: 'Five.' });
    const { result } = await drain(engineFor(model, 2_000).run({ messages: longThread(20) }));
    expect(result.answer).toBe('Five.');
    const sent = model.requests[0]!.messages;
    expect(sent[0]!.role).toBe('system');
    expect(sent.at(-1)!.content).toBe('And now, what is 2 + 3?');
    expect(sent.length).toBeLessThan(41);
    expect(sentTokens(sent) + 256).toBeLessThanOrEqual(2_000);
    expect(model.requests[0]!.maxTokens).toBe(256);
  });

  it("retries once with a harder trim when the server says the request is too long", async () => {
    const model = new ScriptedModel().script(
      { error: new ModelError('context-length', "This model's maximum context length is 1900 tokens.", 400) },
      { content: 'Five.' },
    );
    const { result } = await drain(engineFor(model, 2_000).run({ messages: longThread(20) }));
    expect(result.answer).toBe('Five.');
    expect(model.requests).toHaveLength(2);
    expect(sentTokens(model.requests[1]!.messages)).toBeLessThan(sentTokens(model.requests[0]!.messages));
  });

  it('ends with a message naming MODEL_CONTEXT_TOKENS when even the harder trim does not fit', async () => {
    const model = new ScriptedModel().script(
      { error: new ModelError('context-length', 'too long', 400) },
      { error: new ModelError('context-length', 'still too long', 400) },
    );
    const { result } = await drain(engineFor(model, 2_000).run({ messages: longThread(20) }));
    expect(result).toMatchObject({ reason: 'error', error: { code: 'model-context-length' } });
    expect(model.requests).toHaveLength(2);

    const tiny = new ScriptedModel();
    const { result: none } = await drain(engineFor(tiny, 300).run({ messages: [{ role: 'user', content: 'word '.repeat(500) }] }));
    expect(none.error?.message).toMatch(/MODEL_CONTEXT_TOKENS is 300/);
    expect(tiny.requests).toHaveLength(0);
  });

  it('does not resend an identical request when the question itself overflows: one request, then the message', async () => {
    // Our count says the pasted log fits a 4,000-token window, even at the harder trim's 80 %; the
    // server, which runs with less, says it does not. Nothing older is there to trim.
    const server = await FakeOpenAIServer.start();
    try {
      server.script(
        { status: 400, error: "This model's maximum context length is 1024 tokens. However, your messages resulted in 1630 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' },
        { content: 'never asked' },
      );
      const engine = createEngine({
        model: modelFor(server),
        tools: makeTestTools().tools,
        defaults: { protocol: 'native', maxTokens: 256 },
        fitContext: contextFit({ windowTokens: 4_000, counter }),
      });
      const pastedLog = `Why does this fail?\n${'ERROR worker 17 timed out waiting for lock\n'.repeat(150)}`;
      const { result } = await drain(engine.run({ messages: [{ role: 'user', content: pastedLog }] }));
      expect(server.requests).toHaveLength(1);
      expect(result).toMatchObject({ reason: 'error', error: { code: 'model-context-length' } });
      expect(result.error?.message).toMatch(/MODEL_CONTEXT_TOKENS/);
      expect(result.error?.message).toMatch(/message itself is too long/);
    } finally {
      await server.close();
    }
  });
});
