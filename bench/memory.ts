/**
 * Memory that outlives a thread (`npm run bench -- memory`).
 *
 * Prompt: the first request of a turn for a member with 50 notes of about 300 characters, through the
 * real engine and tools (an in-process model records the request), against the same turn without member
 * memory (no block, no memory tools) as the baseline, and against all 50 notes with no budget. Tokens
 * are counted with the model's tokenizer: every message, plus the tool schemas as sent.
 *
 * Past-thread search: 10,000 stored threads (one exchange each, indexed through `add`), 300 questions of
 * 2-4 words through the thread index's `search` (limit 5, with a visibility check), against the raw
 * full-text query over a bare table holding the same exchanges (same words OR-ed, no layer), taking
 * turns question by question; on SQLite (a temporary file) and PostgreSQL (127.0.0.1, when reachable).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createEngine } from '../src/agent/engine.js';
import type { ToolDefinition } from '../src/agent/tool.js';
import type { ChatMessage, ChatModel, ModelRequest, ModelReply } from '../src/agent/types.js';
import { memoryBlock } from '../src/discord/memory/turn-memory.js';
import { instructionsFor } from '../src/discord/turn/conversation.js';
import { openThreadIndex, type ThreadIndex } from '../src/knowledge/thread-index/index.js';
import { guildKey } from '../src/storage/thread-store.js';
import { queryTerms } from '../src/knowledge/query-terms.js';
import { PG_TS_CONFIG, websearchText } from '../src/storage/postgres/full-text.js';
import { FTS5_TOKENIZER, threadMatch } from '../src/storage/sqlite/full-text.js';
import { openMemoryBackend } from '../src/storage/memory/key-value.js';
import { createMemberMemoryStore, TokenCounter, type MemoryEntry } from '../src/state/index.js';
import { SqliteConnection } from '../src/storage/sqlite-connection.js';
import { createToolbox } from '../tools/index.js';
import { postgresReachable } from './knowledge.js';
import { fmt, percentile, type BenchSection } from './stats.js';

const THREADS = 10_000;
const QUERIES = 300;
const BUDGET = 600;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const G = '900000000000000001';

/** Records the requests it gets and answers at once. */
class RecordingModel implements ChatModel {
  readonly model = 'gpt-4o-mini';
  readonly requests: ModelRequest[] = [];
  async complete(request: ModelRequest): Promise<ModelReply> {
    this.requests.push(request);
    return { content: 'ok', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
  }
}

const counter = new TokenCounter('o200k_base');
const requestTokens = (request: ModelRequest) => request.messages.reduce((sum, m) => sum + counter.message(m as ChatMessage), 0) + (request.tools ? counter.text(JSON.stringify(request.tools)) : 0);

/** The prompt tokens of one turn's first request with `tools` and `instructions`. */
async function promptTokens(tools: readonly ToolDefinition[], instructions: string): Promise<number> {
  const model = new RecordingModel();
  const engine = createEngine({ model, tools, defaults: { protocol: 'native' } });
  await engine.run({ messages: [{ role: 'user', content: '[Alice] How do I ship the new release of my app?' }], instructions }).result;
  return requestTokens(model.requests[0]!);
}

async function benchPrompt(): Promise<BenchSection['rows']> {
  const store = createMemberMemoryStore({ backend: openMemoryBackend(), namespace: 'bench', now: () => new Date() });
  const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'bench', memory: store, threads: { search: async () => [] } });
  try {
    const offered = new Set(['calculate', 'wikipedia', 'current_time', 'plot']);
    const baseTools = toolbox.tools.filter((t) => offered.has(t.name));
    const memoryTools = toolbox.tools.filter((t) => offered.has(t.name) || ['remember', 'forget', 'search_threads'].includes(t.name));
    const words = 'release deploy server cache database staging preference answer typescript region backup schedule monitor alerts'.split(' ');
    const entries: MemoryEntry[] = Array.from({ length: 50 }, (_, i) => ({
      id: `n${String(i).padStart(5, '0')}`, shared: false, how: 'asked', at: Date.UTC(2025, 0, 1) + i * 3_600_000,
      text: Array.from({ length: 60 }, (_, j) => words[(i * 7 + j) % words.length]).join(' ').slice(0, 300),
    }));
    const notes = [{ owner: { id: '1', name: 'Alice' }, entries }];
    const question = 'How do I ship the new release of my app?';
    const base = instructionsFor(undefined);
    const bounded = memoryBlock(notes, question, BUDGET, (t) => counter.text(t))!;
    const unbounded = memoryBlock(notes, question, 1_000_000, (t) => counter.text(t))!;
    const baseline = await promptTokens(baseTools, base);
    const withTools = await promptTokens(memoryTools, base);
    const withBlock = await promptTokens(memoryTools, `${base}\n\n${bounded}`);
    const withAll = await promptTokens(memoryTools, `${base}\n\n${unbounded}`);
    const kept = bounded.split('\n').filter((l) => l.startsWith('- ')).length;
    const row = (turn: string, tokens: number, block: string) => ({ turn, 'prompt tokens': tokens.toLocaleString('en'), 'gained': (tokens - baseline).toLocaleString('en'), 'memory block tokens': block, 'ours / baseline': fmt(tokens / baseline, 2) });
    return [
      row('no member memory (baseline)', baseline, '0'),
      row('memory tools offered, no notes', withTools, '0'),
      row(`50 notes, MEMORY_TOKEN_BUDGET ${BUDGET} (${kept} shown)`, withBlock, `${counter.text(bounded)} (≤ ${BUDGET})`),
      row('50 notes, no budget (all shown)', withAll, String(counter.text(unbounded))),
    ];
  } finally {
    await toolbox.close();
  }
}

/** Deterministic words with a skewed frequency (common and rare ones), as in the knowledge bench. */
function wordMaker(seed: number) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
  const syllables = ['ka', 'lo', 'mi', 'ter', 'son', 'ix', 'ra', 'ven', 'ul', 'pe', 'do', 'qua', 'zen', 'ha', 'tri', 'bel', 'gor', 'ny', 'fa', 'wim', 'sul', 'ob', 'cre', 'tho'];
  const vocab = Array.from({ length: 20_000 }, () => Array.from({ length: 3 + Math.floor(rand() * 2) }, () => syllables[Math.floor(rand() * syllables.length)]).join(''));
  const word = () => vocab[Math.floor(vocab.length * rand() ** 1.5)]!;
  return { rand, word, text: (chars: number) => { let out = ''; while (out.length < chars) out += `${word()} `; return out.trim(); } };
}

/** A bare full-text table of the same exchanges: the baseline query, no layer. */
interface Bare {
  insert(bodies: string[]): Promise<void>;
  match(terms: string[]): Promise<unknown>;
  close(): Promise<void>;
}

async function sqliteBare(file: string): Promise<Bare> {
  const db = await SqliteConnection.open(file, { busyMs: 3_000 });
  await db.all('PRAGMA journal_mode = WAL');
  await db.exec(`CREATE VIRTUAL TABLE bare USING fts5(body, tokenize='${FTS5_TOKENIZER}')`);
  return {
    insert: (bodies) => db.transaction(async (tx) => void (await tx.run(`INSERT INTO bare (body) VALUES ${bodies.map(() => '(?)').join(', ')}`, bodies))),
    match: (terms) => db.all('SELECT rowid, bm25(bare) AS s FROM bare WHERE bare MATCH ? ORDER BY s LIMIT 5', [terms.map((t) => `"${t}"`).join(' OR ')]),
    close: () => db.close(),
  };
}

async function postgresBare(table: string): Promise<Bare> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  await pool.query(`CREATE TABLE ${table} (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL, tsv TSVECTOR NOT NULL)`);
  await pool.query(`CREATE INDEX ${table}_tsv ON ${table} USING GIN (tsv)`);
  return {
    insert: async (bodies) => void (await pool.query(`INSERT INTO ${table} (body, tsv) SELECT b, to_tsvector('${PG_TS_CONFIG}', b) FROM unnest($1::text[]) AS t(b)`, [bodies])),
    match: (terms) => pool.query(`SELECT id, ts_rank_cd(tsv, q, 1) AS s FROM ${table}, websearch_to_tsquery('${PG_TS_CONFIG}', $1) q WHERE tsv @@ q ORDER BY s DESC LIMIT 5`, [websearchText(terms)]),
    close: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    },
  };
}

const latency = (times: number[]) => `p50 ${fmt(percentile(times, 50), 2)} ms, p95 ${fmt(percentile(times, 95), 2)} ms`;
const ratio = (ours: number[], base: number[], p: number) => fmt(percentile(ours, p) / percentile(base, p), 2);

/**
 * `keyed`: the raw query with the server's key token AND-ed, over the index's own table (SQLite), which
 * shows what the server filter inside the index costs apart from the rest of the layer.
 */
async function benchSearch(backend: string, index: ThreadIndex, bare: Bare, settle: () => Promise<void> = async () => {}, keyed?: (terms: string[]) => Promise<unknown>): Promise<BenchSection['rows']> {
  const w = wordMaker(11);
  const exchanges = Array.from({ length: THREADS }, (_, i) => ({ channel: `c${i % 20}`, text: `member${i % 50}: ${w.text(200)}?\nthreadwise: ${w.text(600)}` }));
  const questions = Array.from({ length: QUERIES }, () => `what did we decide about ${Array.from({ length: 2 + Math.floor(w.rand() * 3) }, w.word).join(' ')}?`);
  const started = performance.now();
  for (const [i, x] of exchanges.entries()) {
    await index.add({ guildId: G, channelId: x.channel, threadId: String(100_000 + i), title: `Thread ${i}`, link: `https://discord.com/channels/${G}/${100_000 + i}`, text: x.text, at: new Date() });
  }
  const addMs = (performance.now() - started) / THREADS;
  for (let i = 0; i < THREADS; i += 500) await bare.insert(exchanges.slice(i, i + 500).map((x) => x.text));
  // Both tables as a running server keeps them (PostgreSQL: pending GIN entries merged, statistics fresh).
  await settle();
  const terms = questions.map(queryTerms);
  // Every searcher may view 19 of the 20 channels: the visibility check runs, and a few hits are dropped.
  const canView = async (channelId: string) => channelId !== 'c7';
  for (const q of questions.slice(0, 20)) await index.search(G, q, { canView });
  for (const t of terms.slice(0, 20)) await bare.match(t);
  const ours: number[] = [];
  const raw: number[] = [];
  const key: number[] = [];
  for (const [i, q] of questions.entries()) {
    let t0 = performance.now();
    await index.search(G, q, { limit: 5, canView });
    ours.push(performance.now() - t0);
    t0 = performance.now();
    await bare.match(terms[i]!);
    raw.push(performance.now() - t0);
    if (keyed) {
      t0 = performance.now();
      await keyed(terms[i]!);
      key.push(performance.now() - t0);
    }
  }
  const keyedRow = keyed ? [{ backend, case: "baseline + the server filter: the same raw query with the server's key token AND-ed, over the index's own table", result: latency(key), 'ours / baseline': `p50 ${ratio(key, raw, 50)}, p95 ${ratio(key, raw, 95)}` }] : [];
  return [
    { backend, case: `search_threads' search, limit 5, ${THREADS.toLocaleString('en')} threads, ${QUERIES} questions of 2-4 words`, result: latency(ours), 'ours / baseline': `p50 ${ratio(ours, raw, 50)}, p95 ${ratio(ours, raw, 95)}` },
    { backend, case: 'baseline: raw full-text query over a bare table of the same exchanges, same words OR-ed', result: latency(raw), 'ours / baseline': '1.00' },
    ...keyedRow,
    { backend, case: 'index one exchange as it is saved (add: one transaction)', result: `${fmt(addMs, 2)} ms each`, 'ours / baseline': '' },
  ];
}

export async function benchMemory(): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  rows.push(...(await benchPrompt()));
  const searchRows: BenchSection['rows'] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-memory-'));
  try {
    const index = await openThreadIndex(`sqlite://${path.join(dir, 'threads.sqlite')}`, { baseDir: dir });
    const bare = await sqliteBare(path.join(dir, 'bare.sqlite'));
    const own = await SqliteConnection.open(path.join(dir, 'threads.sqlite'), { busyMs: 3_000 });
    try {
      const keyed = (terms: string[]) => own.all('SELECT rowid, rank FROM kb_thread_fts WHERE kb_thread_fts MATCH ? ORDER BY rank LIMIT 5', [threadMatch(guildKey(G), terms)]);
      searchRows.push(...(await benchSearch('sqlite', index, bare, async () => {}, keyed)));
    } finally {
      await Promise.all([index.close(), bare.close(), own.close()]);
    }
    if (await postgresReachable()) {
      const prefix = `bench_mem_${process.pid}_`;
      const pgIndex = await openThreadIndex(POSTGRES_URL, { baseDir: dir, prefix });
      const pgBare = await postgresBare(`${prefix}bare`);
      try {
        searchRows.push(...(await benchSearch('postgres', pgIndex, pgBare, async () => {
          const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
          for (const table of [`${prefix}thread_exchanges`, `${prefix}threads`, `${prefix}bare`]) await pool.query(`VACUUM ANALYZE ${table}`);
          await pool.end();
        })));
      } finally {
        await pgIndex.close();
        await pgBare.close();
        const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
        await pool.query(`DROP TABLE IF EXISTS ${prefix}thread_exchanges, ${prefix}threads`);
        await pool.end();
      }
    } else {
      notes.push(`PostgreSQL at ${POSTGRES_URL} not reachable: its rows are skipped.`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // Two tables in one section: the prompt rows, then the search rows under their own header.
  notes.unshift(searchTable(searchRows));
  return { name: 'Memory: prompt tokens with 50 notes, and past-thread search over 10,000 threads', rows, notes };
}

function searchTable(rows: BenchSection['rows']): string {
  const cols = Object.keys(rows[0] ?? {});
  return [`| ${cols.join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${cols.map((c) => String(r[c] ?? '')).join(' | ')} |`)].join('\n');
}
