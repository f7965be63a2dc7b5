import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { runAgent, type RunAgentOptions } from '../../src/agent/run-agent.js';
import type { AgentEvent, AgentResult } from '../../src/agent/types.js';
import type { FakeOpenAIServer } from '../fakes/openai-server.js';

export function modelFor(server: FakeOpenAIServer, overrides: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}) {
  return new OpenAIChatModel({
    apiKey: 'test-key',
    baseURL: server.baseURL,
    model: 'fake-model',
    timeoutMs: 5_000,
    maxRetries: 2,
    maxRetryWaitMs: 50,
    ...overrides,
  });
}

/** Drive a run to its end, collecting the events and the result. */
export async function collect(options: RunAgentOptions, onEvent?: (e: AgentEvent) => void) {
  const events: AgentEvent[] = [];
  const run = runAgent(options);
  let next = await run.next();
  while (!next.done) {
    events.push(next.value);
    onEvent?.(next.value);
    next = await run.next();
  }
  return { events, result: next.value as AgentResult };
}

export function ofType<T extends AgentEvent['type']>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}
