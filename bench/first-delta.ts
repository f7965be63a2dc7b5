/**
 * Time from sending a request to the first text delta: OpenAIChatModel (streaming, with the think
 * splitter, stop-sequence cutter, idle watchdog and reply builder in the path), and an engine run
 * around it to its first `text-delta` event, against the raw `openai` SDK streaming loop, the
 * baseline, on one local zero-latency SSE server in the same run.
 * Rounds interleave the two so machine noise hits both alike.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createEngine } from '../src/agent/engine.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

const WORDS = 'The capital of France is Paris, which is also its largest city.'.split(' ');
const MESSAGES = [{ role: 'user' as const, content: 'What is the capital of France?' }];

function startServer(): Promise<http.Server> {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const body =
    chunk({ role: 'assistant', content: '' }) +
    WORDS.map((w, i) => chunk({ content: i ? ` ${w}` : w })).join('') +
    chunk({}, 'stop') +
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 } })}\n\n` +
    'data: [DONE]\n\n';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // One write per chunk, as a real server flushes each token.
      for (const part of body.split(/(?<=\n\n)/)) res.write(part);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One request; resolves with microseconds from send to the first content delta. */
type Probe = () => Promise<number>;

function rawSdk(baseURL: string): Probe {
  const client = new OpenAI({ apiKey: 'x', baseURL, maxRetries: 0 });
  return async () => {
    const t0 = performance.now();
    let first = -1;
    const stream = await client.chat.completions.create({ model: 'm', messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) {
      if (first < 0 && chunk.choices[0]?.delta?.content) first = performance.now() - t0;
    }
    return first * 1000;
  };
}

function ourClient(baseURL: string): Probe {
  const model = new OpenAIChatModel({ apiKey: 'x', baseURL, model: 'm', timeoutMs: 60_000, idleTimeoutMs: 30_000, maxRetries: 0, maxRetryWaitMs: 0, maxTokens: 1024 });
  return async () => {
    const t0 = performance.now();
    let first = -1;
    await model.complete({
      messages: MESSAGES,
      stop: ['PAUSE', '\nObservation'],
      onDelta: (d) => {
        if (first < 0 && d.kind === 'content') first = performance.now() - t0;
      },
    });
    return first * 1000;
  };
}

/** The engine around the same client: a one-step run, timed to its first `text-delta` event. */
function ourEngine(baseURL: string): Probe {
  const model = new OpenAIChatModel({ apiKey: 'x', baseURL, model: 'm', timeoutMs: 60_000, idleTimeoutMs: 30_000, maxRetries: 0, maxRetryWaitMs: 0, maxTokens: 1024 });
  const engine = createEngine({ model, tools: [], defaults: { protocol: 'native' } });
  return async () => {
    const t0 = performance.now();
    let first = -1;
    for await (const event of engine.run({ messages: MESSAGES })) {
      if (first < 0 && event.type === 'text-delta') first = performance.now() - t0;
    }
    return first * 1000;
  };
}

async function sample(probe: Probe, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await probe());
  return out;
}

export async function benchFirstDelta(options: { warmup?: number; rounds?: number; perRound?: number } = {}): Promise<BenchSection> {
  const warmup = options.warmup ?? 300;
  const rounds = options.rounds ?? 15;
  const perRound = options.perRound ?? 100;
  const server = await startServer();
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const probes: Array<[string, Probe]> = [
    ['raw openai SDK streaming loop (baseline)', rawSdk(baseURL)],
    ['OpenAIChatModel.complete with onDelta', ourClient(baseURL)],
    ['engine run, first text-delta event', ourEngine(baseURL)],
  ];
  const all = new Map<string, number[]>(probes.map(([name]) => [name, []]));
  const roundMedians = new Map<string, number[]>(probes.map(([name]) => [name, []]));
  const cpu = new Map<string, number[]>(probes.map(([name]) => [name, []]));
  try {
    for (const [, probe] of probes) await sample(probe, warmup);
    for (let r = 0; r < rounds; r++) {
      for (const [name, probe] of probes) {
        const c0 = process.cpuUsage();
        const values = await sample(probe, perRound);
        const used = process.cpuUsage(c0);
        cpu.get(name)!.push((used.user + used.system) / perRound);
        all.get(name)!.push(...values);
        roundMedians.get(name)!.push(median(values));
      }
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const base = probes[0]![0];
  const rows: BenchSection['rows'] = probes.map(([name]) => {
    const values = all.get(name)!;
    const ratios = roundMedians.get(name)!.map((v, i) => v / roundMedians.get(base)![i]!);
    return {
      client: name,
      'median µs to first delta': fmt(median(values)),
      'p90 µs': fmt(percentile(values, 90)),
      ratio: `${fmt(median(values) / median(all.get(base)!), 2)} (${fmt(Math.min(...ratios), 2)}-${fmt(Math.max(...ratios), 2)})`,
      'CPU µs per request': fmt(median(cpu.get(name)!)),
      'CPU ratio': fmt(median(cpu.get(name)!) / median(cpu.get(base)!), 2),
    };
  });
  return {
    name: 'Model client: time from request to the first text delta (local zero-latency SSE server)',
    rows,
    notes: [
      `${warmup} warm-up requests per client, then ${rounds} interleaved rounds of ${perRound} sequential requests. Ratio: median against the baseline, with the range of per-round ratios in brackets.`,
      'CPU is the whole process per request (client, SDK and the in-process server alike), read whole: the steadier figure on a busy machine.',
      'Both stream the same 15-chunk reply over one keep-alive connection and read it to the end; ours also splits <think> blocks, applies the text protocol stop sequences and arms the idle watchdog.',
    ],
  };
}
