import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createCore, type Core } from '../src/core.js';
import { FakeOpenAIServer } from './fakes/openai-server.js';

let server: FakeOpenAIServer | undefined;
let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  await server?.close();
  core = undefined;
  server = undefined;
});

const config = (baseURL: string, env: Record<string, string> = {}) =>
  loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_BASE_URL: baseURL, OPENAI_MODEL: 'qwen-small', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', ...env });

describe('the core every entry point shares', () => {
  it('learns the context window the server reports and fits every request to it before sending', async () => {
    server = await FakeOpenAIServer.start({ models: { object: 'list', data: [{ id: 'qwen-small', object: 'model', max_model_len: 2_048 }] } });
    core = await createCore(config(server.baseURL, { MODEL_MAX_TOKENS: '256' }));
    expect(core.contextTokens).toBe(2_048);
    server.script({ content: 'Five.' });
    const history = Array.from({ length: 30 }, (_, i) => [
      { role: 'user' as const, content: `Old question ${i}: ${'word '.repeat(60)}` },
      { role: 'assistant' as const, content: `Old answer ${i}: ${'text '.repeat(60)}` },
    ]).flat();
    const result = await core.engine.run({ messages: [...history, { role: 'user', content: 'And 2 + 3?' }] }).result;
    expect(result.answer).toBe('Five.');
    const sent = server.requests[0]!.body;
    expect(sent.max_tokens).toBe(256);
    expect(sent.messages.at(-1)!.content).toBe('And 2 + 3?');
    expect(sent.messages.length).toBeLessThan(30);
    expect(JSON.stringify(sent).length).toBeLessThan(2_048 * 4); // well under the window, in characters
  });

  it('takes MODEL_CONTEXT_TOKENS over what the server says, and sends requests as they are when nothing is known', async () => {
    server = await FakeOpenAIServer.start({ models: { object: 'list', data: [{ id: 'qwen-small', max_model_len: 2_048 }] } });
    core = await createCore(config(server.baseURL, { MODEL_CONTEXT_TOKENS: '8192' }));
    expect(core.contextTokens).toBe(8_192);
    await core.close();

    core = await createCore(config('http://127.0.0.1:9/v1'));
    expect(core.contextTokens).toBeUndefined();
  });
});
