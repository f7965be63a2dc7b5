import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { clientFor, recording } from './helpers.js';

/** A fetch that sends what the SDK addresses to `from` to the fake instead (no request leaves the machine). */
function redirect(from: string, to: string): typeof fetch {
  return (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(from, to), init);
}

describe('bounded replies', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends max_tokens to an OpenAI-compatible server', async () => {
    server.script({ content: 'ok' });
    await clientFor(server).complete(recording({ maxTokens: 256 }).request);
    expect(server.requests[0]!.body.max_tokens).toBe(256);
    expect(server.requests[0]!.body.max_completion_tokens).toBeUndefined();
  });

  it('sends max_completion_tokens to OpenAI itself, with no base URL set', async () => {
    server.script({ content: 'ok' });
    const model = new OpenAIChatModel(
      { apiKey: 'sk-test', model: 'gpt-4o-mini', timeoutMs: 5_000, maxRetries: 0, maxRetryWaitMs: 0 },
      { fetch: redirect('https://api.openai.com/v1', server.baseURL) },
    );
    await model.complete(recording({ maxTokens: 300 }).request);
    expect(server.requests[0]!.body.max_completion_tokens).toBe(300);
    expect(server.requests[0]!.body.max_tokens).toBeUndefined();
    expect(model.key).toBe('https://api.openai.com/v1#gpt-4o-mini');
  });

  it('sends max_completion_tokens when the base URL is api.openai.com', async () => {
    server.script({ content: 'ok' });
    const model = new OpenAIChatModel(
      { apiKey: 'sk-test', baseURL: 'https://api.openai.com/v1', model: 'o4-mini', timeoutMs: 5_000, maxRetries: 0, maxRetryWaitMs: 0 },
      { fetch: redirect('https://api.openai.com/v1', server.baseURL) },
    );
    await model.complete(recording({ maxTokens: 64 }).request);
    expect(server.requests[0]!.body.max_completion_tokens).toBe(64);
  });

  it('uses MODEL_MAX_TOKENS when the request names no limit, and the request when it does', async () => {
    server.script({ content: 'a' }, { content: 'b' });
    const model = clientFor(server, { maxTokens: 1024 });
    await model.complete(recording().request);
    await model.complete(recording({ maxTokens: 50 }).request);
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([1024, 50]);
  });

  it('sends no limit when neither the request nor the configuration names one', async () => {
    server.script({ content: 'a' });
    await clientFor(server).complete(recording().request);
    expect('max_tokens' in server.requests[0]!.body).toBe(false);
  });
});
