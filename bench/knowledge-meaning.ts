/**
 * Meaning search's costs against word search alone, measured in the same run on SQLite (a temporary
 * file) and PostgreSQL (127.0.0.1, when reachable; pgvector where the server has it, else the real[]
 * column). Adding: documents of 100 passages, `add` with embeddings (512 floats a passage from the
 * local server in embedding-server.ts, batches of 64) against `add` by words alone, taking turns
 * document by document; per 1,000 passages, with the embedding requests per passage. Querying: 200
 * questions of 2-5 words at 50,000 passages, the fused search (words, the query's embedding over HTTP,
 * nearest vectors, fusion) against word search alone over the same index, taking turns. The first
 * fused query loads the collection's vectors, and the first after one more document catches up with
 * it: each is reported on its own line.
 * Run alone with `npm run bench -- knowledge-meaning`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAIEmbedder, openKnowledgeBase, type DocumentInput, type KnowledgeBase } from '../src/knowledge/index.js';
import { startBenchEmbeddings, type BenchEmbeddings } from './embedding-server.js';
import { dropKnowledgeTables, postgresReachable, wordMaker } from './knowledge.js';
import { fmt, percentile, type BenchSection } from './stats.js';

const DIMS = 512;
const PASSAGES_PER_DOC = 100;
const ADD_DOCS = 20;
const SCALE_PASSAGES = 50_000;
const QUERIES = 200;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function documents(count: number, seed: number, prefix: string): DocumentInput[] {
  const w = wordMaker(seed);
  return Array.from({ length: count }, (_, d) => ({
    source: `${prefix}/doc-${d}.md`,
    format: 'markdown' as const,
    content: `# ${w.text(30)}\n\n${Array.from({ length: PASSAGES_PER_DOC }, () => `## ${w.text(25)}\n\n${w.text(650)}`).join('\n\n')}`,
  }));
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function benchBackend(label: string, url: string, dir: string, server: BenchEmbeddings, prefix: string): Promise<BenchSection['rows']> {
  const embedder = openAIEmbedder({ model: 'bench-512', baseURL: server.baseURL, apiKey: 'bench', batchSize: 64, timeoutMs: 60_000, maxRetries: 0 });
  const open = (withEmbedder: boolean, p = prefix) => openKnowledgeBase(url, { baseDir: dir, prefix: p, limits: { maxBytes: 1e12 }, ...(withEmbedder ? { embedder } : {}) });
  const meaning = await open(true);
  const words = await open(false);
  const wordsOnly = await open(false, `${prefix}w_`);
  const rows: BenchSection['rows'] = [];
  try {
    const storage = (await meaning.meaning!.status()).storage;
    // Adding, in turns: a document with embeddings, then the same into a words-only index.
    const adds = documents(ADD_DOCS, 11, 'add');
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    const before = server.requests;
    for (const doc of adds) {
      withMs.push(await timed(() => meaning.add('add', doc)));
      withoutMs.push(await timed(() => wordsOnly.add('add', doc)));
    }
    const calls = server.requests - before;
    const perThousand = (ms: number[]) => (ms.reduce((a, b) => a + b, 0) / (ADD_DOCS * PASSAGES_PER_DOC)) * 1_000;
    rows.push(
      { backend: label, case: `add with embeddings (vectors in ${storage}), per 1,000 passages`, result: `${fmt(perThousand(withMs) / 1000, 2)} s; ${fmt(calls / (ADD_DOCS * PASSAGES_PER_DOC), 4)} embedding requests a passage`, 'ours / baseline': fmt(perThousand(withMs) / perThousand(withoutMs), 2) },
      { backend: label, case: 'baseline: add by words alone, per 1,000 passages', result: `${fmt(perThousand(withoutMs) / 1000, 2)} s`, 'ours / baseline': '1.00' },
    );
    // The collection of 50,000 passages the queries run over.
    const big = documents(SCALE_PASSAGES / PASSAGES_PER_DOC, 23, 'big');
    const buildMs = await timed(async () => {
      for (const doc of big) await meaning.add('big', doc);
    });
    rows.push({ backend: label, case: `index ${SCALE_PASSAGES.toLocaleString('en-US')} passages with embeddings`, result: `${fmt(buildMs / 1000, 0)} s (${fmt((buildMs / SCALE_PASSAGES) * 1000 / 1000, 2)} s per 1,000)`, 'ours / baseline': '' });
    const w = wordMaker(23);
    const questions = Array.from({ length: QUERIES }, () => `how do I ${Array.from({ length: 2 + Math.floor(w.rand() * 4) }, w.word).join(' ')}?`);
    const cold = await timed(() => meaning.search('big', questions[0]!));
    const fused: number[] = [];
    const plain: number[] = [];
    for (const q of questions) {
      fused.push(await timed(() => meaning.search('big', q)));
      plain.push(await timed(() => words.search('big', q)));
    }
    // A moderator adds one more document: the next search catches up with it rather than reloading.
    await meaning.add('big', documents(1, 31, 'late')[0]!);
    const caughtUp = await timed(() => meaning.search('big', questions[1]!));
    const p = (xs: number[], n: number) => percentile(xs, n);
    rows.push(
      { backend: label, case: `search by words and meaning, limit 5, at ${SCALE_PASSAGES.toLocaleString('en-US')} passages`, result: `p50 ${fmt(p(fused, 50), 2)} ms, p95 ${fmt(p(fused, 95), 2)} ms`, 'ours / baseline': `p50 ${fmt(p(fused, 50) / p(plain, 50), 2)}, p95 ${fmt(p(fused, 95) / p(plain, 95), 2)}` },
      { backend: label, case: 'baseline: search by words alone, same index', result: `p50 ${fmt(p(plain, 50), 2)} ms, p95 ${fmt(p(plain, 95), 2)} ms`, 'ours / baseline': '1.00' },
      { backend: label, case: 'first search of a process (loads the 50,000 vectors)', result: `${fmt(cold, 0)} ms`, 'ours / baseline': '' },
      { backend: label, case: 'first search after a document of 100 passages was added (catches up)', result: `${fmt(caughtUp, 0)} ms`, 'ours / baseline': '' },
    );
    return rows;
  } finally {
    await Promise.all([meaning.close(), words.close(), wordsOnly.close()]);
  }
}

/** The meaning-search section. */
export async function benchKnowledgeMeaning(): Promise<BenchSection> {
  const server = await startBenchEmbeddings(DIMS);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-meaning-'));
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  try {
    rows.push(...(await benchBackend('sqlite', `sqlite://${path.join(dir, 'kb.sqlite')}`, dir, server, 'kb_')));
    if (await postgresReachable()) {
      const prefix = `bench_m_${process.pid}_`;
      try {
        rows.push(...(await benchBackend('postgres', POSTGRES_URL, dir, server, prefix)));
      } finally {
        await dropKnowledgeTables(prefix);
        await dropKnowledgeTables(`${prefix}w_`);
      }
    } else {
      notes.push(`PostgreSQL at ${POSTGRES_URL} not reachable: skipped.`);
    }
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  notes.push(
    `Passages of ~650 characters of made-up words; vectors of ${DIMS} floats from a local server that answers at once, so these are the bot's own costs: a real embedding server adds its own time per request (one request per 64 passages when adding, one per question when searching).`,
  );
  return { name: 'Knowledge base: meaning search against word search alone', rows, notes };
}
