/**
 * A run's events as an async iterable: every event in order whether it was published before or after
 * the reader asked, read once, and a reader that stops early lets the run finish.
 */
import { expect, it } from 'vitest';
import { AgentRun } from '../../src/agent/agent-run.js';
import type { AgentEvent, AgentResult } from '../../src/agent/types.js';

const result = { reason: 'answer', answer: 'ok', sources: [], steps: 1, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, durationMs: 0, protocol: 'native', messages: [] } as unknown as AgentResult;
const thought = (n: number): AgentEvent => ({ type: 'thought', step: n, text: `t${n}` });

it('gives every event in order, those published before the reader came and those after', async () => {
  let emit!: (e: AgentEvent) => void;
  let finish!: () => void;
  const run = new AgentRun(async (e) => {
    emit = e;
    emit(thought(1));
    emit(thought(2));
    await new Promise<void>((resolve) => (finish = resolve));
    return result;
  });
  const seen: number[] = [];
  const reading = (async () => {
    for await (const event of run) seen.push((event as { step: number }).step);
  })();
  await new Promise((r) => setTimeout(r, 5));
  emit(thought(3));
  await new Promise((r) => setTimeout(r, 5));
  emit(thought(4));
  emit(thought(5));
  finish();
  await reading;
  expect(seen).toEqual([1, 2, 3, 4, 5]);
  expect(await run.result).toBe(result);
});

it('ends the iteration when the run ends with nothing left to read', async () => {
  const run = new AgentRun(async () => result);
  await run.result;
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  expect(events).toEqual([]);
});

it('can be read once', async () => {
  const run = new AgentRun(async () => result);
  for await (const _ of run) {
    // read
  }
  expect(() => run[Symbol.asyncIterator]()).toThrow(/only once/);
});

it('lets the run finish when the reader stops early, and keeps no more events', async () => {
  let emit!: (e: AgentEvent) => void;
  let finish!: () => void;
  const run = new AgentRun(async (e) => {
    emit = e;
    emit(thought(1));
    await new Promise<void>((resolve) => (finish = resolve));
    for (let i = 2; i < 1000; i++) emit(thought(i));
    return result;
  });
  const iterator = run[Symbol.asyncIterator]();
  expect((await iterator.next()).value).toEqual(thought(1));
  await iterator.return?.();
  finish();
  expect(await run.result).toBe(result);
  expect(await iterator.next()).toEqual({ value: undefined, done: true });
  expect((run as unknown as { buffer: unknown[] }).buffer).toHaveLength(0);
});
