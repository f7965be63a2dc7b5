/**
 * Knowledge base costs, on SQLite (a temporary file) and PostgreSQL (127.0.0.1, when reachable).
 * Indexing: 1,000 Markdown documents of 10 sections each (10,000 passages) through `add` (chunk,
 * clean, hash, one transaction per document), against the baseline of inserting the same passages
 * straight into a bare full-text table, also one transaction per document, taking turns document by
 * document. Queries: 300 questions of
 * 2-5 words through `search` (limit 5), against the raw full-text query over the bare table (same words,
 * no layer) and a search without an index (LIKE over every passage, ranked by words found). Run alone with `npx tsx bench/knowledge.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openKnowledgeBase, type DocumentInput, type KnowledgeBase } from '../src/knowledge/index.js';
import { queryTerms } from '../src/knowledge/query-terms.js';
import { PG_TS_CONFIG, websearchText } from '../src/storage/postgres/full-text.js';
import { SqliteConnection } from '../src/storage/sqlite-connection.js';
import { FTS5_TOKENIZER } from '../src/storage/sqlite/full-text.js';
import { fmt, percentile, type BenchSection } from './stats.js';

const DOCUMENTS = 1_000;
const SECTIONS = 10;
const QUERIES = 300;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Deterministic words with a skewed (Zipf-like) frequency, so some are common and most are rare. */
export function wordMaker(seed: number) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
  const syllables = ['ka', 'lo', 'mi', 'ter', 'son', 'ix', 'ra', 'ven', 'ul', 'pe', 'do', 'qua', 'zen', 'ha', 'tri', 'bel', 'gor', 'ny', 'fa', 'wim', 'sul', 'ob', 'cre', 'tho'];
  // Three or four syllables: enough distinct words that the vocabulary is not mostly repeats.
  const vocab = Array.from({ length: 20_000 }, () => Array.from({ length: 3 + Math.floor(rand() * 2) }, () => syllables[Math.floor(rand() * syllables.length)]).join(''));
  const word = () => vocab[Math.floor(vocab.length * rand() ** 1.5)]!;
  return { rand, word, text: (chars: number) => { let out = ''; while (out.length < chars) out += `${word()}${rand() < 0.1 ? '. ' : ' '}`; return out.trim(); } };
}

function corpus(): { docs: DocumentInput[]; questions: string[] } {
  const w = wordMaker(7);
  const docs = Array.from({ length: DOCUMENTS }, (_, d): DocumentInput => ({
    source: `bench/doc-${d}.md`,
    format: 'markdown',
    content: `# ${w.text(30)}\n\n${Array.from({ length: SECTIONS }, () => `## ${w.text(25)}\n\n${w.text(700)}`).join('\n\n')}`,
  }));
  const questions = Array.from({ length: QUERIES }, () => `how do I ${Array.from({ length: 2 + Math.floor(w.rand() * 4) }, w.word).join(' ')}?`);
  return { docs, questions };
}

/** The passages `add` would store, for the baseline to insert without the layer. */
function passagesOf(doc: DocumentInput): string[] {
  return doc.content.split(/\n## /).slice(1).map((section) => section.slice(section.indexOf('\n\n') + 2));
}

/** Raw baselines over a bare table: insert one document's passages, a full-text query, a LIKE scan. */
interface Baseline {
  insert(passages: string[]): Promise<void>;
  match(terms: string[]): Promise<unknown>;
  /** No index: every passage scanned, ranked by how many of the words it contains. */
  like(terms: string[]): Promise<unknown>;
  close(): Promise<void>;
}

async function sqliteBaseline(file: string): Promise<Baseline> {
  const db = await SqliteConnection.open(file, { busyMs: 3_000 });
  await db.all('PRAGMA journal_mode = WAL');
  await db.exec(`CREATE VIRTUAL TABLE bare USING fts5(body, tokenize='${FTS5_TOKENIZER}')`);
  return {
    insert: (passages) => db.transaction(async (tx) => void (await tx.run(`INSERT INTO bare (body) VALUES ${passages.map(() => '(?)').join(', ')}`, passages))),
    match: (terms) => db.all('SELECT rowid, bm25(bare) AS s FROM bare WHERE bare MATCH ? ORDER BY s LIMIT 5', [terms.map((t) => `"${t}"`).join(' OR ')]),
    like: (terms) => db.all(
      `SELECT rowid, ${terms.map(() => '(body LIKE ?)').join(' + ')} AS hits FROM bare WHERE hits > 0 ORDER BY hits DESC LIMIT 5`,
      terms.map((t) => `%${t}%`)),
    close: () => db.close(),
  };
}

async function postgresBaseline(table: string): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  await pool.query(`CREATE TABLE ${table} (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL, tsv TSVECTOR NOT NULL)`);
  await pool.query(`CREATE INDEX ${table}_tsv ON ${table} USING GIN (tsv)`);
  return {
    insert: async (passages) => {
      await pool.query(`INSERT INTO ${table} (body, tsv) SELECT b, to_tsvector('${PG_TS_CONFIG}', b) FROM unnest($1::text[]) AS t(b)`, [passages]);
    },
    match: (terms) => pool.query(`SELECT id, ts_rank_cd(tsv, q, 1) AS s FROM ${table}, websearch_to_tsquery('${PG_TS_CONFIG}', $1) q WHERE tsv @@ q ORDER BY s DESC LIMIT 5`, [websearchText(terms)]),
    like: (terms) => pool.query(
      `SELECT id, hits FROM (SELECT id, ${terms.map((_, i) => `(body ILIKE $${i + 1})::int`).join(' + ')} AS hits FROM ${table}) s WHERE hits > 0 ORDER BY hits DESC LIMIT 5`,
      terms.map((t) => `%${t}%`)),
    close: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    },
  };
}

async function timeEach<T>(items: T[], run: (item: T) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const started = performance.now();
    await run(item);
    times.push(performance.now() - started);
  }
  return times;
}

/** Time several ways of answering each item, taking turns item by item, so a change in machine load hits all alike. */
async function timeInTurns<T>(items: T[], ways: Array<(item: T) => Promise<unknown>>): Promise<number[][]> {
  const times = ways.map(() => [] as number[]);
  for (const item of items) {
    for (const [i, way] of ways.entries()) {
      const started = performance.now();
      await way(item);
      times[i]!.push(performance.now() - started);
    }
  }
  return times;
}

const latency = (times: number[]) => `p50 ${fmt(percentile(times, 50), 2)} ms, p95 ${fmt(percentile(times, 95), 2)} ms`;
const ratio = (ours: number[], base: number[], p: number) => fmt(percentile(ours, p) / percentile(base, p), 2);

async function benchBackend(backend: string, kb: KnowledgeBase, baseline: Baseline, data: ReturnType<typeof corpus>): Promise<BenchSection['rows']> {
  let passages = 0;
  const [oursMs, baseMs] = await timeInTurns(data.docs, [
    async (doc) => void (passages += (await kb.add('bench', doc)).document.passages),
    (doc) => baseline.insert(passagesOf(doc)),
  ]) as [number[], number[]];
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const oursSeconds = sum(oursMs) / 1_000;
  const baseSeconds = sum(baseMs) / 1_000;
  const unchangedStart = performance.now();
  for (const doc of data.docs.slice(0, 200)) await kb.add('bench', doc);
  const unchangedMs = (performance.now() - unchangedStart) / 200;

  const termsOf = data.questions.map(queryTerms);
  // Warm both paths (page cache, plans) before timing.
  for (const q of data.questions.slice(0, 20)) await kb.search('bench', q);
  for (const t of termsOf.slice(0, 20)) await baseline.match(t);
  const [ours, raw] = await timeInTurns(data.questions.map((q, i) => ({ q, terms: termsOf[i]! })), [
    ({ q }) => kb.search('bench', q, { limit: 5 }),
    ({ terms }) => baseline.match(terms),
  ]) as [number[], number[]];
  // The scan is slow; a sixth of the questions is enough for its percentiles.
  const like = await timeEach(termsOf.slice(0, Math.ceil(QUERIES / 6)), (t) => baseline.like(t));
  const has = await timeEach(data.questions.slice(0, 100), () => kb.hasDocuments('bench'));
  const rate = (n: number, s: number) => `${fmt(n / s, 0)} passages/s`;
  return [
    { backend, case: `index ${passages.toLocaleString('en')} passages (${DOCUMENTS.toLocaleString('en')} documents) with add()`, result: rate(passages, oursSeconds), 'ours / baseline': fmt(baseSeconds / oursSeconds, 2) },
    { backend, case: 'baseline: the same passages into a bare full-text table, one transaction per document', result: rate(passages, baseSeconds), 'ours / baseline': '1.00' },
    { backend, case: 'add() of an unchanged document (hash match, nothing re-indexed)', result: `${fmt(unchangedMs, 2)} ms each`, 'ours / baseline': '' },
    { backend, case: `search() limit 5, ${QUERIES} questions of 2-5 words`, result: latency(ours), 'ours / baseline': `p50 ${ratio(ours, raw, 50)}, p95 ${ratio(ours, raw, 95)}` },
    { backend, case: 'baseline: raw full-text query, same words OR-ed, bare table', result: latency(raw), 'ours / baseline': '1.00' },
    { backend, case: 'baseline: no index, LIKE scan of every passage ranked by words found', result: latency(like), 'ours / baseline': `p50 ${ratio(ours, like, 50)}, p95 ${ratio(ours, like, 95)}` },
    { backend, case: 'hasDocuments() (is the tool offered?)', result: latency(has), 'ours / baseline': '' },
  ];
}

/** Whether the PostgreSQL test database answers within a second. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The knowledge section: one set of rows per reachable index backend. */
export async function benchKnowledge(): Promise<BenchSection> {
  const data = corpus();
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-kb-'));
  try {
    const kb = await openKnowledgeBase(`sqlite://${path.join(dir, 'kb.sqlite')}`, { baseDir: dir });
    const baseline = await sqliteBaseline(path.join(dir, 'baseline.sqlite'));
    try {
      rows.push(...(await benchBackend('sqlite', kb, baseline, data)));
    } finally {
      await Promise.all([kb.close(), baseline.close()]);
    }
    if (await postgresReachable()) {
      const prefix = `bench_${process.pid}_`;
      const pgKb = await openKnowledgeBase(POSTGRES_URL, { baseDir: dir, prefix });
      const pgBaseline = await postgresBaseline(`${prefix}bare`);
      try {
        rows.push(...(await benchBackend('postgres', pgKb, pgBaseline, data)));
      } finally {
        await pgKb.close();
        await pgBaseline.close();
        await dropKnowledgeTables(prefix);
      }
    } else {
      notes.push(`PostgreSQL at ${POSTGRES_URL} not reachable: skipped.`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  notes.unshift(
    `Documents of ${SECTIONS} sections of ~700 characters (one passage each), made-up words with a skewed frequency. SQLite in WAL mode in a temporary folder; PostgreSQL on 127.0.0.1. "ours / baseline": for indexing, our throughput as a share of the bare insert's (the rest is chunking, cleaning, hashing, the documents table and the cap check); for search, our latency divided by the raw query's.`,
  );
  return { name: 'Knowledge base: indexing throughput and search latency', rows, notes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { printSection } = await import('./stats.js');
  printSection(await benchKnowledge());
  process.exit(0);
}

/** Remove a bench run's knowledge tables from the PostgreSQL test database. */
export async function dropKnowledgeTables(prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${prefix}vectors, ${prefix}vector_versions, ${prefix}passages, ${prefix}documents`);
  await client.end();
}
