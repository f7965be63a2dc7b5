/**
 * The engine's own code per step, with no I/O: an engine run over an in-process model that streams two
 * pieces of text, against the minimal loop over the very same model (call it, run the tool the reply
 * names, append, repeat). Beside a real server (`engine`) the engine's code is a few percent of a step
 * and machine noise hides a change in it; here it is all there is, so a change on the engine's hot path
 * shows. Each episode: tool call, tool call, answer (3 steps); CPU time, interleaved rounds.
 */
import { z } from 'zod';
import { createEngine } from '../src/agent/engine.js';
import { defineTool } from '../src/agent/tool.js';
import type { ChatMessage, ChatModel, ModelReply, ModelRequest } from '../src/agent/types.js';
import { runBatch, type Episode } from './engine.js';
import { fmt, median, type BenchSection } from './stats.js';

const STEPS = 3;
const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

/** A model that answers at once: a tool call until two results are in, then the answer, in two streamed pieces. */
const model: ChatModel = {
  model: 'in-process',
  async complete(request: ModelRequest): Promise<ModelReply> {
    const results = request.messages.filter((m) => m.role === 'tool').length;
    if (results >= STEPS - 1) {
      request.onDelta?.({ kind: 'content', text: 'The answer ' });
      request.onDelta?.({ kind: 'content', text: 'is 5.' });
      return { content: 'The answer is 5.', toolCalls: [], finishReason: 'stop', usage };
    }
    return { content: '', toolCalls: [{ id: `call_${results}`, type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }], finishReason: 'tool_calls', usage };
  },
};

function engineLoop(): Episode {
  const add = defineTool({ name: 'add', description: 'Add two numbers.', parameters: z.object({ a: z.number(), b: z.number() }), run: async ({ a, b }) => String(a + b) });
  const engine = createEngine({ model, tools: [add], defaults: { protocol: 'native' } });
  return async () => {
    const run = engine.run({ messages: [{ role: 'user', content: 'What is 2 + 3?' }] });
    for await (const _event of run) {
      // Read every event, as the bot does.
    }
    const result = await run.result;
    if (result.reason !== 'answer') throw new Error(`bench run ended with ${result.reason}`);
  };
}

/** The least a loop over the same model does: no validation, no events, no limits. */
function minimalLoop(): Episode {
  const tools: Record<string, (args: { a: number; b: number }) => string> = { add: ({ a, b }) => String(a + b) };
  return async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'What is 2 + 3?' }];
    let text = '';
    for (let step = 0; step < STEPS; step++) {
      const reply = await model.complete({ messages, onDelta: (d) => (text += d.text) });
      if (reply.toolCalls.length === 0) return reply.content;
      messages.push({ role: 'assistant', content: reply.content || null, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        messages.push({ role: 'tool', tool_call_id: call.id, content: tools[call.function.name]!(JSON.parse(call.function.arguments)) });
      }
    }
    return text;
  };
}

/** CPU microseconds per step over `count` episodes. */
async function cpuPerStep(episode: Episode, count: number, concurrency: number): Promise<number> {
  return ((await runBatch(episode, count, concurrency)).cpu * 1000) / (count * STEPS);
}

export async function benchEngineAlone(options: { warmup?: number; rounds?: number; perRound?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 20_000;
  const rounds = options.rounds ?? 30;
  const perRound = options.perRound ?? 2_000;
  const loops: Array<[string, Episode]> = [
    ['minimal loop over the same model (baseline)', minimalLoop()],
    ['threadwise engine', engineLoop()],
  ];
  const rows: BenchSection['rows'] = [];
  for (const concurrency of [1, 16]) {
    for (const [, episode] of loops) await cpuPerStep(episode, warmup, concurrency);
    const cpu = new Map<string, number[]>(loops.map(([name]) => [name, []]));
    for (let r = 0; r < rounds; r++) {
      // Alternate the order each round, so neither loop always runs first after the other's garbage.
      for (const [name, episode] of r % 2 ? [...loops].reverse() : loops) cpu.get(name)!.push(await cpuPerStep(episode, perRound, concurrency));
    }
    const base = cpu.get(loops[0]![0])!;
    for (const [name] of loops) {
      const c = cpu.get(name)!;
      rows.push({ concurrency, loop: name, 'CPU µs per step': `${fmt(median(c), 2)} (${fmt(Math.min(...c), 2)}-${fmt(Math.max(...c), 2)})`, 'engine µs over the baseline': fmt(median(c) - median(base), 2) });
    }
  }
  return {
    name: 'Engine code alone: an in-process model, no I/O (3-step episodes)',
    rows,
    notes: [
      `${warmup} warm-up episodes per loop, then ${rounds} interleaved rounds of ${perRound}. Medians, min-max over rounds in brackets.`,
      'What a step costs in the engine itself (the protocol driver, argument validation, the tool runner, events, output cleaning): compare the last column between two versions to see a change on the hot path that the server-backed section cannot.',
    ],
  };
}
