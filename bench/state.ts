/**
 * Thread memory costs. Trimming: counting and trimming histories of 1k to 1M tokens to the default
 * 8,000-token budget with a cold cache (cost must grow linearly: the µs per 1k tokens stay flat), then
 * trimming the unchanged history again with the cache warm, both as the same objects (the engine's
 * case) and as a freshly loaded copy (content-keyed cache). Storage: append + load round trips per
 * second on every backend that is reachable (memory, SQLite in a temp dir, Redis and PostgreSQL on
 * 127.0.0.1). Run alone with `npx tsx bench/state.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { clearMergeCache } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from '../src/agent/types.js';
import { TokenCounter, createStorage, trimHistory, type Storage } from '../src/state/index.js';
import { fmt, median, type BenchSection } from './stats.js';

const SIZES = [1_000, 10_000, 100_000, 1_000_000];
const BUDGET = { budget: 8_000, reserveForReply: 1_000, model: 'gpt-4o-mini' };

/** Deterministic text with a skewed vocabulary of made-up words, so the tokenizer does real work. */
function textMaker(seed: number) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
  const syllables = ['ka', 'lo', 'mi', 'ter', 'son', 'ix', 'ra', 'ven', 'ul', 'pe', 'do', 'qua', 'zen', 'ha', 'tri'];
  const vocab = Array.from({ length: 3_000 }, () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => syllables[Math.floor(rand() * syllables.length)]).join(''));
  return (chars: number) => {
    let out = '';
    while (out.length < chars) out += `${vocab[Math.floor(vocab.length * rand() ** 3)]}${rand() < 0.08 ? '.\n' : ' '}`;
    return out;
  };
}

/** A history of at least `tokens` tokens: turns of question, a tool call, its observation and an answer. */
function historyOf(tokens: number): ChatMessage[] {
  const text = textMaker(tokens);
  const sizer = new TokenCounter('o200k_base');
  const messages: ChatMessage[] = [{ role: 'system', content: text(600) }];
  for (let n = 0, size = sizer.message(messages[0]!); size < tokens; n++) {
    const id = `call_${n}`;
    const turn: ChatMessage[] = [
      { role: 'user', content: text(200), name: `user_${n % 5}` },
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'wikipedia', arguments: JSON.stringify({ query: text(30) }) } }] },
      { role: 'tool', tool_call_id: id, content: text(1_600) },
      { role: 'assistant', content: text(400) },
    ];
    messages.push(...turn);
    size += turn.reduce((sum, m) => sum + sizer.message(m), 0);
  }
  return messages;
}

function timeMs(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function benchTrimming(): BenchSection['rows'] {
  const rows: BenchSection['rows'] = [];
  // Warm the JIT on other text, so "cold" below means a cold cache, not cold code.
  for (let i = 0; i < 20; i++) trimHistory(historyOf(20_000), { ...BUDGET, counter: new TokenCounter('o200k_base') });
  for (const size of SIZES) {
    const history = historyOf(size);
    const reps = size >= 1_000_000 ? 3 : size >= 100_000 ? 5 : 20;
    const cold: number[] = [];
    const warm: number[] = [];
    const reloaded: number[] = [];
    let tokens = 0;
    for (let r = 0; r < reps; r++) {
      const counter = new TokenCounter('o200k_base');
      clearMergeCache();
      cold.push(timeMs(() => (tokens = trimHistory(history, { ...BUDGET, counter }).droppedTokens)));
      warm.push(timeMs(() => trimHistory(history, { ...BUDGET, counter })));
      const copy = structuredClone(history);
      reloaded.push(timeMs(() => trimHistory(copy, { ...BUDGET, counter })));
    }
    const result = trimHistory(history, { ...BUDGET, counter: new TokenCounter('o200k_base') });
    tokens += result.totalTokens;
    rows.push({
      case: 'trim to 8k (count + trim), cold cache',
      size: `${fmt(tokens / 1_000, tokens < 10_000 ? 1 : 0)}k tokens, ${history.length} messages`,
      'median ms': fmt(median(cold), 2),
      'µs per 1k tokens': fmt((median(cold) * 1_000) / (tokens / 1_000), 0),
      'warm re-trim / cold (same objects)': `${fmt((100 * median(warm)) / median(cold), 2)}%`,
      'warm re-trim / cold (reloaded copy)': `${fmt((100 * median(reloaded)) / median(cold), 1)}%`,
      'round trips / s': '',
    });
  }
  return rows;
}

async function openIfReachable(url: string, dir: string): Promise<Storage | undefined> {
  try {
    return await createStorage({ keyvUrl: url, historyTokenBudget: 8_000 }, { namespace: `bench-${process.pid}-${Date.now().toString(36)}`, baseDir: dir, timeouts: { connectMs: 1_000 }, logger: () => {} });
  } catch {
    return undefined;
  }
}

/** Append a question and an answer, then load the thread (at most 40 messages long). */
async function benchStore(storage: Storage): Promise<BenchSection['rows'][number]> {
  const appends: number[] = [];
  const loads: number[] = [];
  const threads = new Set<string>();
  const deadline = performance.now() + 1_500;
  let n = 0;
  for (; performance.now() < deadline && n < 3_000; n++) {
    const thread = `bench${Math.floor(n / 20)}`;
    threads.add(thread);
    let t = performance.now();
    await storage.conversations.append(thread, [{ role: 'user', content: `question ${n}`, author: { id: '1', name: 'Ann' } }, { role: 'assistant', content: `answer ${n}` }]);
    appends.push(performance.now() - t);
    t = performance.now();
    await storage.conversations.load(thread);
    loads.push(performance.now() - t);
  }
  for (const thread of threads) await storage.conversations.reset(thread);
  const total = appends.reduce((a, b) => a + b, 0) + loads.reduce((a, b) => a + b, 0);
  return {
    case: `store on ${storage.kind}: append 2 messages + load the thread`,
    size: `${n} round trips, threads of ≤ 40 messages`,
    'median ms': `append ${fmt(median(appends), 2)}, load ${fmt(median(loads), 2)}`,
    'µs per 1k tokens': '',
    'warm re-trim / cold (same objects)': '',
    'warm re-trim / cold (reloaded copy)': '',
    'round trips / s': fmt((n * 1_000) / total, 0),
  };
}

/** The state bench section: trimming rows, then one row per reachable backend. */
export async function benchState(): Promise<BenchSection> {
  const rows = benchTrimming();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-'));
  const skipped: string[] = [];
  const urls = ['memory:', 'sqlite://bench.sqlite', process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'];
  for (const url of urls) {
    const storage = await openIfReachable(url, dir);
    if (!storage) {
      skipped.push(url);
      continue;
    }
    try {
      rows.push(await benchStore(storage));
    } finally {
      await storage.close();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'Thread memory: trimming cost and storage round trips',
    rows,
    notes: [
      `Budget 8,000 tokens with 1,000 kept for the reply; o200k_base. Cold = new counter and tokenizer merge cache cleared; median of 20/20/5/3 runs. SQLite runs with synchronous=FULL (each append is fsynced).${skipped.length ? ` Not reachable, skipped: ${skipped.join(', ')}.` : ''}`,
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { printSection } = await import('./stats.js');
  printSection(await benchState());
  process.exit(0);
}
