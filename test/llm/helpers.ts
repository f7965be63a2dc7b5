import { ModelError } from '../../src/errors.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import type { ModelConfig } from '../../src/config.js';
import type { ModelDelta, ModelRequest } from '../../src/agent/types.js';
import type { FakeOpenAIServer } from '../fakes/openai-server.js';

/** The real client, pointed at the fake, with short limits so failures show fast. */
export function clientFor(server: Pick<FakeOpenAIServer, 'baseURL'>, overrides: Partial<ModelConfig> = {}) {
  return new OpenAIChatModel({
    apiKey: 'test-key',
    baseURL: server.baseURL,
    model: 'fake-model',
    timeoutMs: 5_000,
    idleTimeoutMs: 5_000,
    maxRetries: 2,
    maxRetryWaitMs: 20,
    ...overrides,
  });
}

export const ask: ModelRequest['messages'] = [{ role: 'user', content: 'What is 2 + 3?' }];

/** A request that records every delta it is given. */
export function recording(extra: Partial<ModelRequest> = {}) {
  const deltas: ModelDelta[] = [];
  const request: ModelRequest = { messages: ask, onDelta: (d) => deltas.push(d), ...extra };
  return { request, deltas, text: (kind: ModelDelta['kind']) => deltas.filter((d) => d.kind === kind).map((d) => d.text).join('') };
}

/** The ModelError a request fails with; any other outcome fails the test. */
export async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}
