import { afterEach, describe, expect, it } from 'vitest';
import { builtinContextTokens, contextTokensFor } from '../../src/llm/context-window.js';
import { FakeOpenAIServer, type FakeServerOptions } from '../fakes/openai-server.js';
import { clientFor } from './helpers.js';

describe('built-in context windows of OpenAI models', () => {
  it.each([
    ['gpt-4o', 128_000],
    ['gpt-4o-2024-08-06', 128_000],
    ['gpt-4o-mini', 128_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4.1-mini-2025-04-14', 1_047_576],
    ['gpt-4.1-nano', 1_047_576],
    ['gpt-5', 400_000],
    ['gpt-5-mini', 400_000],
    ['gpt-5-chat-latest', 128_000],
    ['o1', 200_000],
    ['o1-mini', 128_000],
    ['o3-mini', 200_000],
    ['o4-mini', 200_000],
    ['gpt-3.5-turbo', 16_385],
    ['gpt-4', 8_192],
    ['gpt-4-0613', 8_192],
    ['gpt-4-turbo-2024-04-09', 128_000],
    ['gpt-4-1106-preview', 128_000],
    ['ft:gpt-4o-mini-2024-07-18:acme::abc123', 128_000],
    ['openai/gpt-4o', 128_000],
  ])('%s has %i tokens', (model, tokens) => {
    expect(builtinContextTokens(model)).toBe(tokens);
  });

  it('knows nothing of other models', () => {
    expect(builtinContextTokens('qwen2.5:7b')).toBeUndefined();
    expect(builtinContextTokens('gpt-4o-like-local-model')).toBe(128_000); // a family name prefix is still that family
    expect(builtinContextTokens('llama-gpt-4o')).toBeUndefined();
  });
});

describe('context window lookup', () => {
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (options: FakeServerOptions) => (server = await FakeOpenAIServer.start(options));

  it('prefers MODEL_CONTEXT_TOKENS and asks the server nothing', async () => {
    const fake = await start({ models: { data: [{ id: 'm', max_model_len: 32_768 }] } });
    expect(await contextTokensFor({ model: 'm', baseURL: fake.baseURL, configured: 4_096 })).toEqual({ tokens: 4_096, source: 'MODEL_CONTEXT_TOKENS' });
    expect(fake.gets).toEqual([]);
  });

  it("reads vLLM's max_model_len from /v1/models", async () => {
    // vllm/entrypoints/openai/protocol.py: ModelCard.max_model_len
    const fake = await start({ models: { object: 'list', data: [{ id: 'other', max_model_len: 2_048 }, { id: 'Qwen/Qwen2.5-7B-Instruct', object: 'model', owned_by: 'vllm', max_model_len: 32_768 }] } });
    expect(await contextTokensFor({ model: 'Qwen/Qwen2.5-7B-Instruct', baseURL: fake.baseURL })).toEqual({ tokens: 32_768, source: 'server' });
    expect(fake.gets).toEqual(['/v1/models']);
  });

  it("reads llama.cpp's running context from /props rather than the trained one in /v1/models", async () => {
    // tools/server/README.md: GET /props -> default_generation_settings.n_ctx; /v1/models -> meta.n_ctx_train
    const fake = await start({
      models: { object: 'list', data: [{ id: '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 32_768, n_vocab: 151_936 } }] },
      props: { default_generation_settings: { n_ctx: 4_096, params: { n_predict: -1 } }, total_slots: 1 },
    });
    expect(await contextTokensFor({ model: 'qwen', baseURL: fake.baseURL })).toEqual({ tokens: 4_096, source: 'server' });
  });

  it("falls back to llama.cpp's trained context when /props is not there", async () => {
    const fake = await start({ models: { data: [{ id: 'model.gguf', meta: { n_ctx_train: 8_192 } }] } });
    expect((await contextTokensFor({ model: 'model.gguf', baseURL: fake.baseURL }))?.tokens).toBe(8_192);
  });

  it("reads LM Studio's loaded context length from /api/v0/models", async () => {
    // https://github.com/llm-lmstudio/llm-lmstudio/issues/1 shows the /api/v0/models fields
    const fake = await start({
      models: { data: [{ id: 'llama-3.2-3b-instruct', object: 'model', owned_by: 'organization_owner' }, { id: 'mistral', object: 'model' }] },
      lmStudioModels: {
        data: [
          { id: 'mistralai/mistral-small-3.2', type: 'vlm', state: 'loaded', max_context_length: 131_072, loaded_context_length: 4_096 },
          { id: 'llama-3.2-3b-instruct', type: 'llm', state: 'loaded', max_context_length: 131_072, loaded_context_length: 8_192 },
        ],
      },
    });
    expect((await contextTokensFor({ model: 'llama-3.2-3b-instruct', baseURL: fake.baseURL }))?.tokens).toBe(8_192);
  });

  it('uses the built-in table when the server reports nothing, and undefined when nothing knows', async () => {
    const fake = await start({});
    expect(await contextTokensFor({ model: 'gpt-4o-mini', baseURL: fake.baseURL })).toEqual({ tokens: 128_000, source: 'built-in table' });
    expect(await contextTokensFor({ model: 'llama3.1:8b', baseURL: fake.baseURL })).toBeUndefined();
    expect(fake.gets).toContain('/v1/models');
  });

  it('does not ask OpenAI itself; the table answers', async () => {
    const fetchSpy: typeof fetch = () => Promise.reject(new Error('must not be called'));
    expect(await contextTokensFor({ model: 'gpt-4.1', fetch: fetchSpy })).toEqual({ tokens: 1_047_576, source: 'built-in table' });
    expect(await contextTokensFor({ model: 'gpt-4.1', baseURL: 'https://api.openai.com/v1', fetch: fetchSpy })).toMatchObject({ tokens: 1_047_576 });
  });

  it('gives up quietly on a server that cannot be reached', async () => {
    expect(await contextTokensFor({ model: 'x', baseURL: 'http://127.0.0.1:9/v1', timeoutMs: 500 })).toBeUndefined();
  });

  it('is asked once per client', async () => {
    const fake = await start({ models: { data: [{ id: 'fake-model', max_model_len: 16_384 }] } });
    const model = clientFor(fake);
    expect(await model.contextTokens()).toBe(16_384);
    expect(await model.contextTokens()).toBe(16_384);
    expect(fake.gets).toEqual(['/v1/models']);
  });
});
