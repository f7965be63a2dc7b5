/**
 * The core and what measures it, for the composition root: the core (model client, tools, MCP
 * servers) over the stores the tools read, and the process's metrics over the core. The model's request
 * times and the MCP calls reach the metrics through listeners, because the metrics need the core's tool
 * list and the core needs to know where to report: the listeners break that circle.
 */
import type { Config } from '../src/config.js';
import { createCore, type Core, type CoreOverrides } from '../src/core.js';
import type { RunRegistry } from '../src/discord/runs/run-registry.js';
import type { Logger } from '../src/logger.js';
import { measureModel } from '../src/ops/measured-model.js';
import type { Metrics } from '../src/ops/metrics.js';
import type { RunTracer } from '../src/ops/run-tracer.js';
import type { Storage, ThreadQueue, UsageLimiter } from '../src/state/index.js';
import type { AppKnowledge } from './knowledge.js';
import type { AppThreads } from './memory.js';
import { buildMetrics } from './parts.js';

export interface CoreParts {
  storage: Storage;
  knowledge?: AppKnowledge;
  threads?: AppThreads;
  limiter: UsageLimiter;
  queue: ThreadQueue;
  runs: RunRegistry;
  tracer?: RunTracer;
  logger: Logger;
}

/** The core over the stores (its tools read the knowledge base, members' notes and past threads), and the metrics over it. */
export async function openCore(config: Config, parts: CoreParts, overrides: CoreOverrides): Promise<{ core: Core; metrics: Metrics }> {
  const { storage, knowledge, threads, limiter, tracer, logger } = parts;
  const timings: Array<(seconds: number, kind?: string) => void> = [];
  const mcpCalls: Array<(server: string, outcome: string) => void> = [];
  const wrapModel: NonNullable<CoreOverrides['wrapModel']> = (model) =>
    measureModel(tracer ? tracer.wrapModel(model) : model, { observeModelRequest: (s, k) => timings.forEach((f) => f(s, k)) });
  const core = await createCore(config, { ...overrides, wrapModel }, {
    knowledge: knowledge?.services.base,
    memory: storage.memberMemory,
    threads: threads?.index,
    // web_search counts each server's searches in the usage store.
    searchAllowance: (guildId, max) => limiter.takeDaily('web_search', guildId, max),
    logger,
    onMcpCall: (server, outcome) => mcpCalls.forEach((f) => f(server, outcome)),
  });
  const metrics = buildMetrics(config, { core, queue: parts.queue, runs: parts.runs });
  timings.push((s, k) => metrics.observeModelRequest(s, k));
  mcpCalls.push((server, outcome) => metrics.countMcpCall(server, outcome));
  return { core, metrics };
}
