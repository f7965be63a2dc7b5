/**
 * The bot's Prometheus metrics, in one registry made by the composition root (never the prom-client
 * global, so two apps in one process — tests, the bench — keep separate counts). What feeds them:
 * engine events through `TurnDeps.observers.onEvent` (runs, steps, tool calls, tokens), the measuring model
 * decorator (model requests), the bot's interaction routing (acknowledgement latency), read-only
 * gauges over the thread queue and the run registry, and `countLimitRefusal` for usage limits.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentEvent } from '../agent/types.js';
import { SERVER_STATES } from '../mcp/index.js';

/** What the gauges read when scraped. */
export interface MetricsSources {
  /** Jobs waiting for their thread (ThreadQueue.waitingJobs). */
  queueWaiting?: () => number;
  /** Threads with a job running or waiting (ThreadQueue.activeThreads). */
  queueThreads?: () => number;
  /** Runs in progress (RunRegistry.size). */
  runsActive?: () => number;
  /** Each MCP server and its state (connecting, ready, restarting, closed). */
  mcpServers?: () => ReadonlyArray<{ name: string; state: string }>;
}

export interface MetricsOptions extends MetricsSources {
  /** Tool names the bot has: any other name a model invents is counted as "unknown", so labels stay few. */
  tools: readonly string[];
  /** Tools that join later (MCP servers'): counted under their own name too. */
  isTool?: (name: string) => boolean;
  /** Labels on every series (the shard id when sharded). */
  defaultLabels?: Record<string, string>;
  /** Node's process metrics (CPU, memory, event loop lag). Default true. */
  processMetrics?: boolean;
}

/** Outcome label of a model request. */
export type ModelOutcome = 'ok' | 'error';

export interface Metrics {
  readonly registry: Registry;
  /** Feed one engine event (wire to `TurnDeps.observers.onEvent`). */
  observeEvent(event: AgentEvent): void;
  /** One model request: how long it took, and the error kind when it failed. */
  observeModelRequest(seconds: number, errorKind?: string): void;
  /** Time from an interaction reaching the bot to its first response (defer, reply, update, autocomplete). */
  observeAcknowledgement(kind: string, seconds: number): void;
  /**
   * The hook for usage limits: call it when a request is refused by a limit (`limit` names which one,
   * e.g. "member-daily-runs"). Counted as `threadwise_limit_refusals_total{limit}`.
   */
  countLimitRefusal(limit: string): void;
  /** One call to an MCP server's tool: `ok`, `error` (the tool or the server failed) or `unavailable` (server down). */
  countMcpCall(server: string, outcome: string): void;
  /** The exposition text, as `/metrics` serves it. */
  text(): Promise<string>;
  readonly contentType: string;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Build the registry and every metric in it. */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const known = new Set(options.tools);
  const toolLabel = (name: string) => (known.has(name) || options.isTool?.(name) ? name : 'unknown');
  const registers = [registry];

  const runs = new Counter({ name: 'threadwise_runs_total', help: 'Finished runs, by why they ended.', labelNames: ['reason'], registers });
  const steps = new Histogram({ name: 'threadwise_run_steps', help: 'Reasoning steps per finished run.', buckets: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50], registers });
  const runSeconds = new Histogram({ name: 'threadwise_run_duration_seconds', help: 'Duration of finished runs.', buckets: SECONDS, registers });
  const toolCalls = new Counter({ name: 'threadwise_tool_calls_total', help: 'Tool calls, by tool and outcome (ok or error).', labelNames: ['tool', 'outcome'], registers });
  const toolSeconds = new Histogram({ name: 'threadwise_tool_call_duration_seconds', help: 'Duration of tool calls.', labelNames: ['tool'], buckets: SECONDS, registers });
  const tokens = new Counter({ name: 'threadwise_tokens_total', help: 'Model tokens used by finished runs, as the API reported them.', labelNames: ['kind'], registers });
  const fallbacks = new Counter({ name: 'threadwise_protocol_fallbacks_total', help: 'Runs that switched protocol because the server rejected tools.', registers });
  const modelSeconds = new Histogram({ name: 'threadwise_model_request_duration_seconds', help: 'Model requests (retries included), by outcome.', labelNames: ['outcome'], buckets: SECONDS, registers });
  const modelErrors = new Counter({ name: 'threadwise_model_errors_total', help: 'Failed model requests, by kind (rate-limit, server, timeout, connection, auth, ...).', labelNames: ['kind'], registers });
  const acks = new Histogram({ name: 'threadwise_interaction_ack_seconds', help: 'From an interaction reaching the bot to its first response.', labelNames: ['kind'], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5], registers });
  const refusals = new Counter({ name: 'threadwise_limit_refusals_total', help: 'Requests refused by a usage limit, by limit.', labelNames: ['limit'], registers });
  const mcpCalls = new Counter({ name: 'threadwise_mcp_calls_total', help: 'Calls to MCP servers\' tools, by server and outcome (ok, error, unavailable).', labelNames: ['server', 'outcome'], registers });
  const mcpServers = options.mcpServers;
  if (mcpServers) {
    new Gauge({
      name: 'threadwise_mcp_server_up',
      help: 'MCP servers by state: 1 for the state each server is in now.',
      labelNames: ['server', 'state'],
      registers,
      collect() {
        this.reset();
        for (const server of mcpServers()) for (const state of SERVER_STATES) this.set({ server: server.name, state }, server.state === state ? 1 : 0);
      },
    });
  }
  gauge(registry, 'threadwise_queue_waiting', 'Turns waiting for their thread (queue depth).', options.queueWaiting);
  gauge(registry, 'threadwise_queue_threads', 'Threads with a turn running or waiting.', options.queueThreads);
  gauge(registry, 'threadwise_runs_active', 'Runs in progress.', options.runsActive);

  return {
    registry,
    contentType: registry.contentType,
    observeEvent(event) {
      switch (event.type) {
        case 'observation':
          toolCalls.inc({ tool: toolLabel(event.tool), outcome: event.isError ? 'error' : 'ok' });
          toolSeconds.observe({ tool: toolLabel(event.tool) }, event.durationMs / 1000);
          return;
        case 'protocol-fallback':
          fallbacks.inc();
          return;
        case 'run-end':
          runs.inc({ reason: event.reason });
          steps.observe(event.steps);
          runSeconds.observe(event.durationMs / 1000);
          tokens.inc({ kind: 'prompt' }, event.usage.promptTokens);
          tokens.inc({ kind: 'completion' }, event.usage.completionTokens);
          return;
        default:
          return;
      }
    },
    observeModelRequest(seconds, errorKind) {
      modelSeconds.observe({ outcome: errorKind ? 'error' : 'ok' }, seconds);
      if (errorKind) modelErrors.inc({ kind: errorKind });
    },
    observeAcknowledgement(kind, seconds) {
      acks.observe({ kind }, seconds);
    },
    countLimitRefusal(limit) {
      refusals.inc({ limit });
    },
    countMcpCall(server, outcome) {
      mcpCalls.inc({ server, outcome });
    },
    text: () => registry.metrics(),
  };
}

function gauge(registry: Registry, name: string, help: string, read: (() => number) | undefined): void {
  if (!read) return;
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}
