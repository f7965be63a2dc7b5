import { describe, expect, it } from 'vitest';
import type { AgentEvent, ChatModel, ModelReply } from '../../src/agent/types.js';
import { ModelError } from '../../src/errors.js';
import { measureModel } from '../../src/ops/measured-model.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { ThreadQueue } from '../../src/state/index.js';
import { metricValue } from './helpers/bot-process.js';

const usage = { promptTokens: 30, completionTokens: 5, totalTokens: 35 };
const observation = (tool: string, isError = false): AgentEvent => ({
  type: 'observation', step: 1, callId: 'c', tool, output: 'x', isError, durationMs: 12, truncated: false,
});

describe('metrics', () => {
  it('counts runs by end reason, steps, tool calls by tool and outcome, and tokens from engine events', async () => {
    const metrics = createMetrics({ tools: ['calculate', 'wikipedia'], processMetrics: false });
    for (const event of [
      observation('calculate'),
      observation('calculate', true),
      observation('wikipedia'),
      { type: 'run-end', reason: 'answer', steps: 3, usage, durationMs: 1500 },
      { type: 'run-end', reason: 'step-limit', steps: 8, usage, durationMs: 9000 },
    ] satisfies AgentEvent[]) metrics.observeEvent(event);
    const text = await metrics.text();
    expect(metricValue(text, 'threadwise_runs_total{reason="answer"}')).toBe(1);
    expect(metricValue(text, 'threadwise_runs_total{reason="step-limit"}')).toBe(1);
    expect(metricValue(text, 'threadwise_run_steps_sum')).toBe(11);
    expect(metricValue(text, 'threadwise_run_steps_bucket{le="3"}')).toBe(1);
    expect(metricValue(text, 'threadwise_tool_calls_total{tool="calculate",outcome="ok"}')).toBe(1);
    expect(metricValue(text, 'threadwise_tool_calls_total{tool="calculate",outcome="error"}')).toBe(1);
    expect(metricValue(text, 'threadwise_tool_calls_total{tool="wikipedia",outcome="ok"}')).toBe(1);
    expect(metricValue(text, 'threadwise_tokens_total{kind="prompt"}')).toBe(60);
    expect(metricValue(text, 'threadwise_tokens_total{kind="completion"}')).toBe(10);
  });

  it('counts a tool name the model invented as "unknown", so a model cannot create series at will', async () => {
    const metrics = createMetrics({ tools: ['calculate'], processMetrics: false });
    for (let i = 0; i < 5; i++) metrics.observeEvent(observation(`made_up_${i}`, true));
    const text = await metrics.text();
    expect(metricValue(text, 'threadwise_tool_calls_total{tool="unknown",outcome="error"}')).toBe(5);
    expect(text).not.toContain('made_up_');
  });

  it('reads queue depth and active runs when scraped, and counts limit refusals through its hook', async () => {
    const queue = new ThreadQueue();
    let active = 2;
    const metrics = createMetrics({ tools: [], processMetrics: false, queueWaiting: () => queue.waitingJobs, queueThreads: () => queue.activeThreads, runsActive: () => active });
    let release!: () => void;
    const running = queue.run('t1', () => new Promise<void>((r) => (release = r)));
    const waiting = [queue.run('t1', async () => {}), queue.run('t1', async () => {})];
    let text = await metrics.text();
    expect(metricValue(text, 'threadwise_queue_waiting')).toBe(2);
    expect(metricValue(text, 'threadwise_queue_threads')).toBe(1);
    expect(metricValue(text, 'threadwise_runs_active')).toBe(2);
    release();
    await Promise.all([running, ...waiting]);
    active = 0;
    metrics.countLimitRefusal('member-daily-runs');
    metrics.countLimitRefusal('member-daily-runs');
    text = await metrics.text();
    expect(metricValue(text, 'threadwise_queue_waiting')).toBe(0);
    expect(metricValue(text, 'threadwise_runs_active')).toBe(0);
    expect(metricValue(text, 'threadwise_limit_refusals_total{limit="member-daily-runs"}')).toBe(2);
  });

  it('keeps each app\'s counts in its own registry and labels every series with the shard', async () => {
    const a = createMetrics({ tools: [], processMetrics: false, defaultLabels: { shard: '1' } });
    const b = createMetrics({ tools: [], processMetrics: false });
    a.observeAcknowledgement('command', 0.004);
    expect(metricValue(await a.text(), 'threadwise_interaction_ack_seconds_count{shard="1",kind="command"}')).toBe(1);
    expect(metricValue(await b.text(), 'threadwise_interaction_ack_seconds_count{kind="command"}')).toBeUndefined();
  });
});

describe('measured model', () => {
  const reply: ModelReply = { content: 'hi', toolCalls: [], usage };

  it('times each request by outcome and counts failures by kind, passing replies and errors through unchanged', async () => {
    const metrics = createMetrics({ tools: [], processMetrics: false });
    const failures = [new ModelError('rate-limit', 'slow down', 429), new Error('boom')];
    const inner: ChatModel = {
      model: 'm', key: 'http://x/v1#m',
      complete: async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return reply;
      },
    };
    let clock = 0;
    const model = measureModel(inner, metrics, () => (clock += 250));
    expect(model.model).toBe('m');
    expect(model.key).toBe('http://x/v1#m');
    await expect(model.complete({ messages: [] })).rejects.toMatchObject({ kind: 'rate-limit' });
    await expect(model.complete({ messages: [] })).rejects.toThrow('boom');
    expect(await model.complete({ messages: [] })).toBe(reply);
    const text = await metrics.text();
    expect(metricValue(text, 'threadwise_model_request_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(metricValue(text, 'threadwise_model_request_duration_seconds_sum{outcome="ok"}')).toBe(0.25);
    expect(metricValue(text, 'threadwise_model_request_duration_seconds_count{outcome="error"}')).toBe(2);
    expect(metricValue(text, 'threadwise_model_errors_total{kind="rate-limit"}')).toBe(1);
    expect(metricValue(text, 'threadwise_model_errors_total{kind="other"}')).toBe(1);
  });
});
