/**
 * Orchestration cost per step: our loop (an engine run over OpenAIChatModel, which streams) against the
 * minimal loop of the openai SDK from the reference write-up, the minimal loop a streaming bot needs (the
 * SDK with `stream: true`, tool-call deltas put back together), and the minimal loop over plain fetch (the floor).
 * All three talk to one local zero-latency server in the same process run; the rounds interleave the
 * loops so machine noise hits them alike. Each episode: tool call, tool call, answer (3 steps).
 */
import http from 'node:http';
import { promiseHooks } from 'node:v8';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { z } from 'zod';
import { defineTool } from '../src/agent/tool.js';
import { createEngine } from '../src/agent/engine.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import type { ChatModel, ModelReply, ModelRequest } from '../src/agent/types.js';
import { fmt, median, type BenchSection } from './stats.js';

const STEPS = 3;
const SYSTEM = 'You are a research assistant. Use the available tools when needed.';

/** Request bytes the server received, per loop name in the `x-loop` header (for the prompt-size row). */
const requestBytes = new Map<string, number>();

function startServer(): Promise<http.Server> {
  const toolReply = JSON.stringify({
    id: 'x', object: 'chat.completion', created: 0, model: 'm',
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }] } }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  const answerReply = JSON.stringify({
    id: 'x', object: 'chat.completion', created: 0, model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'The answer is 5.' } }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  const chunk = (delta: object, finish: string | null) => JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const usage = JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  const toolChunks = [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'add', arguments: '' } }] }, null),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":2,' } }] }, null),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"b":3}' } }] }, null),
    chunk({}, 'tool_calls'),
    usage,
  ];
  const answerChunks = [chunk({ role: 'assistant', content: 'The answer ' }, null), chunk({ content: 'is 5.' }, null), chunk({}, 'stop'), usage];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // Stateless: the number of tool results so far decides the reply, so concurrent episodes work.
      const body = Buffer.concat(chunks).toString();
      const loop = req.headers['x-loop'];
      if (typeof loop === 'string') requestBytes.set(loop, (requestBytes.get(loop) ?? 0) + Buffer.byteLength(body));
      const toolResults = body.split('"role":"tool"').length - 1;
      const answering = toolResults >= STEPS - 1;
      if (/"stream":\s*true/.test(body)) {
        // Server-sent events, as a streaming server answers: a few chunks, then the usage, then [DONE].
        const chunks = answering ? answerChunks : toolChunks;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chunks.map((c) => `data: ${c}\n\n`).join('') + 'data: [DONE]\n\n');
        return;
      }
      const text = answering ? answerReply : toolReply;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export type Episode = () => Promise<unknown>;

const schemas = [{
  type: 'function' as const,
  function: { name: 'add', description: 'Add two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
}];
const TOOLS: Record<string, (args: { a: number; b: number }) => number> = { add: ({ a, b }) => a + b };

/** The reference write-up's loop, in TypeScript, with the openai SDK. */
function minimalSdkLoop(baseURL: string, label?: string): Episode {
  const client = new OpenAI({ apiKey: 'x', baseURL, ...(label ? { defaultHeaders: { 'x-loop': label } } : {}) });
  return async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'What is 2 + 3?' }];
    for (let step = 0; step < 10; step++) {
      const r = await client.chat.completions.create({ model: 'm', messages, tools: schemas });
      const msg = r.choices[0]!.message;
      messages.push(msg);
      if (!msg.tool_calls) return msg.content;
      for (const tc of msg.tool_calls) {
        if (tc.type !== 'function') continue;
        let result: string;
        try {
          result = String(TOOLS[tc.function.name]!(JSON.parse(tc.function.arguments)));
        } catch (e) {
          result = `Tool error: ${String(e)}`;
        }
        messages.push({ role: 'tool', tool_call_id: tc.id, content: result });
      }
    }
    return 'Step limit reached.';
  };
}

/**
 * The minimal loop a streaming bot needs, with the openai SDK and `stream: true`: text deltas shown as
 * they come (here: collected), tool-call deltas put back together by index, then the tools run.
 */
function minimalStreamingSdkLoop(baseURL: string): Episode {
  const client = new OpenAI({ apiKey: 'x', baseURL });
  return async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'What is 2 + 3?' }];
    for (let step = 0; step < 10; step++) {
      const stream = await client.chat.completions.create({ model: 'm', messages, tools: schemas, stream: true, stream_options: { include_usage: true } });
      let content = '';
      const calls: Array<{ id: string; name: string; args: string }> = [];
      for await (const part of stream) {
        const delta = part.choices[0]?.delta;
        if (!delta) continue;
        if (delta.content) content += delta.content;
        for (const tc of delta.tool_calls ?? []) {
          const call = (calls[tc.index] ??= { id: '', name: '', args: '' });
          if (tc.id) call.id = tc.id;
          if (tc.function?.name) call.name += tc.function.name;
          if (tc.function?.arguments) call.args += tc.function.arguments;
        }
      }
      if (calls.length === 0) return content;
      messages.push({ role: 'assistant', content: content || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })) });
      for (const c of calls) {
        let result: string;
        try {
          result = String(TOOLS[c.name]!(JSON.parse(c.args)));
        } catch (e) {
          result = `Tool error: ${String(e)}`;
        }
        messages.push({ role: 'tool', tool_call_id: c.id, content: result });
      }
    }
    return 'Step limit reached.';
  };
}

/** The same minimal loop over plain fetch: what the SDK's layers cost. */
function minimalFetchLoop(baseURL: string): Episode {
  return async () => {
    const messages: unknown[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'What is 2 + 3?' }];
    for (let step = 0; step < 10; step++) {
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: JSON.stringify({ model: 'm', messages, tools: schemas }),
      });
      const msg = ((await res.json()) as OpenAI.ChatCompletion).choices[0]!.message;
      messages.push(msg);
      if (!msg.tool_calls) return msg.content;
      for (const tc of msg.tool_calls) {
        if (tc.type !== 'function') continue;
        messages.push({ role: 'tool', tool_call_id: tc.id, content: String(TOOLS[tc.function.name]!(JSON.parse(tc.function.arguments))) });
      }
    }
    return 'Step limit reached.';
  };
}

/**
 * A model client that is the streaming loop's own few lines: no watchdog, retries, error-body
 * normalising, `<think>` or stop handling, and the SDK's own reader of the event stream (which
 * OpenAIChatModel replaces with a lighter one). The engine over it, against the engine over
 * OpenAIChatModel, splits the gap to the streaming loop into the engine's share and the model client's.
 */
class BareSdkModel implements ChatModel {
  readonly model = 'm';
  private readonly client: OpenAI;

  constructor(baseURL: string) {
    this.client = new OpenAI({ apiKey: 'x', baseURL });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const stream = await this.client.chat.completions.create({ model: 'm', messages: request.messages as OpenAI.ChatCompletionMessageParam[], tools: request.tools, stream: true, stream_options: { include_usage: true } });
    let content = '';
    let finishReason: string | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    const toolCalls: ModelReply['toolCalls'] = [];
    for await (const part of stream) {
      if (part.usage) usage = part.usage;
      const choice = part.choices[0];
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      if (choice.delta.content) {
        content += choice.delta.content;
        request.onDelta?.({ kind: 'content', text: choice.delta.content });
      }
      for (const tc of choice.delta.tool_calls ?? []) {
        const call = (toolCalls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.function.name += tc.function.name;
        if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
      }
    }
    return { content, toolCalls, finishReason, usage: { promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0, totalTokens: usage?.total_tokens ?? 0 } };
  }
}

/** Our loop: an engine run with its events consumed, as the bot does. */
function ourLoop(baseURL: string, label?: string): Episode {
  const fetchAs: typeof fetch | undefined = label ? (url, init) => fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-loop': label } }) : undefined;
  return engineLoop(new OpenAIChatModel({ apiKey: 'x', baseURL, model: 'm', timeoutMs: 60_000, maxRetries: 2, maxRetryWaitMs: 10_000 }, { fetch: fetchAs }));
}

function engineLoop(model: ChatModel): Episode {
  const add = defineTool({
    name: 'add', description: 'Add two numbers', parameters: z.object({ a: z.number(), b: z.number() }),
    async run({ a, b }) {
      return String(a + b);
    },
  });
  const engine = createEngine({ model, tools: [add], defaults: { protocol: 'native' } });
  return async () => {
    const run = engine.run({ messages: [{ role: 'user', content: 'What is 2 + 3?' }] });
    for await (const _event of run) {
      // consumed, as the bot consumes them
    }
    const result = await run.result;
    if (result.reason !== 'answer') throw new Error(`bench run ended with ${result.reason}`);
    return result.answer;
  };
}

const STREAMING = 'minimal streaming SDK loop';
const ENGINE = 'threadwise engine (streams)';
const BARE = 'engine over a bare SDK client';

/** Promises created per step over 100 episodes, one at a time: each is an allocation and, awaited, a microtask. */
async function countPromises(episode: Episode): Promise<number> {
  let made = 0;
  const stop = promiseHooks.createHook({ init: () => made++ });
  try {
    for (let i = 0; i < 100; i++) await episode();
  } finally {
    stop();
  }
  return made / (100 * STEPS);
}

/** Wall and CPU milliseconds for `count` episodes. CPU time counts our process only, so it is steadier on a busy machine. */
export async function runBatch(episode: Episode, count: number, concurrency: number): Promise<{ wall: number; cpu: number }> {
  let started = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const worker = async () => {
    while (started < count) {
      started++;
      await episode();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (cpu.user + cpu.system) / 1000 };
}

export async function benchEngine(options: { warmup?: number; rounds?: number; perRound?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 1000;
  const rounds = options.rounds ?? 15;
  const perRound = options.perRound ?? 200;
  const server = await startServer();
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const loops: Array<[string, Episode]> = [
    ['minimal SDK loop (baseline)', minimalSdkLoop(baseURL)],
    [STREAMING, minimalStreamingSdkLoop(baseURL)],
    [ENGINE, ourLoop(baseURL)],
    [BARE, engineLoop(new BareSdkModel(baseURL))],
    ['minimal loop over plain fetch', minimalFetchLoop(baseURL)],
  ];
  const rows: BenchSection['rows'] = [];
  const pairedRatios: string[] = [];
  const promisesPerStep = new Map<string, number>();
  try {
    for (const concurrency of [1, 16]) {
      for (const [, episode] of loops) await runBatch(episode, warmup, concurrency);
      const wall = new Map<string, number[]>(loops.map(([name]) => [name, []]));
      const cpu = new Map<string, number[]>(loops.map(([name]) => [name, []]));
      for (let r = 0; r < rounds; r++) {
        // The order turns each round, so no loop always runs after the same one (and pays for its garbage).
        for (const [name, episode] of [...loops.slice(r % loops.length), ...loops.slice(0, r % loops.length)]) {
          const ms = await runBatch(episode, perRound, concurrency);
          wall.get(name)!.push((ms.wall * 1000) / (perRound * STEPS));
          cpu.get(name)!.push((ms.cpu * 1000) / (perRound * STEPS));
        }
      }
      const baseName = loops[0]![0];
      // Round by round against the streaming loop: the two ran in the same round, so a round's load hits both.
      const pairedWith = (name: string) => {
        const paired = cpu.get(name)!.map((v, i) => v / cpu.get(STREAMING)![i]!);
        return `${fmt(median(paired), 2)} (${fmt(Math.min(...paired), 2)}-${fmt(Math.max(...paired), 2)})`;
      };
      pairedRatios.push(`at concurrency ${concurrency} the engine ${pairedWith(ENGINE)}, the engine over a bare SDK client ${pairedWith(BARE)}`);
      for (const [name] of loops) {
        const w = wall.get(name)!;
        const c = cpu.get(name)!;
        const cpuRatios = c.map((v, i) => v / cpu.get(baseName)![i]!);
        rows.push({
          concurrency,
          loop: name,
          'CPU µs per step': `${fmt(median(c))} (${fmt(Math.min(...c))}-${fmt(Math.max(...c))})`,
          'CPU ratio': `${fmt(median(c) / median(cpu.get(baseName)!), 2)} (${fmt(Math.min(...cpuRatios), 2)}-${fmt(Math.max(...cpuRatios), 2)})`,
          'wall µs per step': `${fmt(median(w))} (${fmt(Math.min(...w))}-${fmt(Math.max(...w))})`,
          'wall ratio': fmt(median(w) / median(wall.get(baseName)!), 2),
        });
      }
    }
    // Promises made per step: a count, not a time, so it is the same on a quiet machine and a busy one.
    for (const [name, episode] of loops) promisesPerStep.set(name, await countPromises(episode));
    // What each loop sends for one episode: our system prompt and step notes against the minimal loop's.
    await minimalSdkLoop(baseURL, 'minimal')();
    await ourLoop(baseURL, 'engine')();
  } finally {
    server.closeAllConnections();
    server.close();
  }
  return {
    name: 'Engine: orchestration cost per step (3-step episodes, local zero-latency server)',
    rows,
    notes: [
      `${warmup} warm-up episodes per loop, then ${rounds} interleaved rounds of ${perRound} episodes, the order turning each round. Medians, with min-max over rounds in brackets; lower is better.`,
      'CPU time is the whole process (the loop, the SDK or fetch, and the in-process server alike), so it is the steadier figure on a busy machine.',
      'The engine streams (as the bot does), so its fair comparison is the minimal streaming SDK loop: the least a bot that shows text as it arrives must do.',
      `Against the streaming loop, the median of the rounds' own ratios (each round runs every loop once): ${pairedRatios.join('; ')}. The engine over a bare SDK client (the streaming loop's own lines as its model client, the SDK's own event reader included) shows the engine's share of the gap; the difference between the two engine rows is the model client's (watchdog, retries, error bodies, <think> and stop handling, less what its own event reader saves against the SDK's).`,
      `Promises made per step (counted, so the same on a busy machine): ${loops.map(([name]) => `${name} ${fmt(promisesPerStep.get(name)!)}`).join(', ')}.`,
      `Prompt size: one 3-step episode sends ${fmt(requestBytes.get('engine')!)} request bytes with the engine against ${fmt(requestBytes.get('minimal')!)} with the minimal loop (${fmt(requestBytes.get('engine')! / requestBytes.get('minimal')!, 2)}x): our system prompt, step notes and request fields (max_tokens, stream options).`,
    ],
  };
}
