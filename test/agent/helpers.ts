import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { createEngine, type AgentRun, type EngineOptions, type RunDefaults, type RunInput } from '../../src/agent/engine.js';
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

/** An engine's options, its defaults and one run's input, flat, as the engine tests write them. */
export type TestRun = Omit<EngineOptions, 'defaults'> & Partial<RunDefaults> & RunInput;

/** An engine from a flat test description (defaults picked out of it). */
export function engineFrom(options: TestRun) {
  const { model, tools, fetch, now, clock, protocolMemoryMs, ...rest } = options;
  const { protocol: _p, maxSteps: _m, ...defaults } = rest as Partial<RunDefaults> & Record<string, unknown>;
  return createEngine({ model, tools, fetch, now, clock, protocolMemoryMs, defaults: defaults as Partial<RunDefaults> });
}

/** Read a run's events to the end, collecting them and the result. */
export async function drain(run: AgentRun, onEvent?: (e: AgentEvent) => void) {
  const events: AgentEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent?.(event);
  }
  return { events, result: (await run.result) as AgentResult };
}

/** One run on a fresh engine, driven to its end. */
export async function collect(options: TestRun, onEvent?: (e: AgentEvent) => void) {
  return drain(engineFrom(options).run(options), onEvent);
}

export function ofType<T extends AgentEvent['type']>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}
