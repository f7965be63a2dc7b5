/**
 * Meaning search against the fake embedding server (test/fakes/fake-embeddings.ts: synonyms share a
 * concept), on SQLite, on PostgreSQL with the plain real[] column, and on PostgreSQL with pgvector where
 * the extension exists: a question worded differently finds its passage, an exact product name still
 * ranks first, a server that is down at add time costs only meaning (and the background job catches
 * up), a spent budget skips embedding until the document is added again, and a changed model is
 * re-embedded while words keep working.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openAIEmbedder, openKnowledgeBase, type EmbeddingBudget, type KnowledgeBase } from '../../src/knowledge/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { POSTGRES_URL } from '../state/helpers/targets.js';
import { dropPostgresTables, knowledgeTargets, uniquePrefix, type KnowledgeTarget } from './helpers/targets.js';

const FAQ = '# FAQ\n\n## Price\n\nThe game is free: there is no subscription and nothing to purchase.';
const OTHERS = [
  ['/levels.md', '# Levels\n\nThe game has forty levels; each game level unlocks the next game mode.'],
  ['/players.md', '# Players\n\nA game needs two players; the game ends when one player wins the game.'],
  ['/tips.md', '# Tips\n\nSave the game often. A long game can be paused and the game resumed later.'],
  ['/modes.md', '# Modes\n\nThe game offers a story game and an arcade game for every player.'],
];
const CHARGERS = [
  ['/stormbreaker.md', '# Stormbreaker X2\n\nThe Stormbreaker X2 speaker ships in a gift box with a strap, a manual and a charger.'],
  ['/chargers.md', '# Chargers\n\nAny USB charger works. A charger with more watts charges faster; a weak charger is slow to charge the battery.'],
  ['/cables.md', '# Cables\n\nUse the cable from the box. A charger, a cable and a battery pack are sold as spare power parts.'],
  ['/battery.md', '# Battery\n\nThe battery lasts ten hours; plug in the charger when the power light blinks.'],
];

async function pgvectorReason(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    const { rows } = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    return rows.length ? undefined : 'the server has no pgvector extension (postgresql-NN-pgvector); the real[] column is tested instead';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const targets: Array<KnowledgeTarget & { label: string; vectorColumn: 'auto' | 'array' }> = [];
for (const t of await knowledgeTargets('kb-meaning')) {
  if (t.kind === 'sqlite') targets.push({ ...t, label: 'sqlite', vectorColumn: 'auto' });
  else {
    targets.push({ ...t, label: 'postgres (real[] column)', vectorColumn: 'array' });
    const reason = t.available ? await pgvectorReason() : t.reason;
    if (reason && t.available) console.warn(`[kb-meaning] skipping the pgvector suite: ${reason}`);
    targets.push({ ...t, label: 'postgres (pgvector)', vectorColumn: 'auto', available: t.available && !reason });
  }
}

for (const target of targets) {
  describe.runIf(target.available)(`meaning search on ${target.label}`, () => {
    let server: FakeOpenAIServer;
    const opened: Array<{ kb: KnowledgeBase; prefix: string }> = [];
    const open = async (model = 'fake-embed', prefix = uniquePrefix('meaning'), withEmbedder = true) => {
      const embedder = openAIEmbedder({ model, baseURL: server.baseURL, apiKey: 'test', batchSize: 4, timeoutMs: 5_000, maxRetries: 1 });
      const kb = await openKnowledgeBase(target.url, { baseDir: process.cwd(), prefix, logger: () => {}, vectorColumn: target.vectorColumn, ...(withEmbedder ? { embedder } : {}) });
      opened.push({ kb, prefix });
      return kb;
    };
    const md = (source: string, content: string) => ({ source, format: 'markdown' as const, content });
    beforeAll(async () => (server = await FakeOpenAIServer.start()));
    afterEach(() => {
      server.embeddingsDown = false;
    });
    afterAll(async () => {
      for (const { kb, prefix } of opened) {
        await kb.close().catch(() => undefined);
        if (target.kind === 'postgres') await dropPostgresTables(prefix).catch(() => undefined);
      }
      await server?.close();
    });

    it('the "pay" question finds the "free" passage, which words alone miss', async () => {
      const prefix = uniquePrefix('pay');
      const kb = await open('fake-embed', prefix);
      for (const [source, content] of [['/faq.md', FAQ], ...OTHERS] as const) {
        const result = await kb.add('c', md(source, content));
        expect(result.embedding).toMatchObject({ state: 'done', model: 'fake-embed' });
      }
      const words = await open('fake-embed', prefix, false);
      const question = 'Do I have to pay for the game?';
      expect((await words.search('c', question, { limit: 3 })).map((h) => h.source)).not.toContain('/faq.md');
      const found = await kb.search('c', question, { limit: 3 });
      expect(found.map((h) => h.source)).toContain('/faq.md');
      expect(found.find((h) => h.source === '/faq.md')!.text).toContain('free');
      expect(await kb.meaning!.status()).toMatchObject({ model: 'fake-embed', passages: 5, embedded: 5, skipped: 0, storage: target.kind === 'sqlite' ? 'sqlite' : target.vectorColumn === 'array' ? 'pg-array' : 'pgvector' });
    });

    it('an exact product name still ranks first, though meaning prefers the passages about chargers', async () => {
      const kb = await open();
      for (const [source, content] of CHARGERS) await kb.add('p', md(source!, content!));
      const hits = await kb.search('p', 'Stormbreaker X2 charger', { limit: 4 });
      expect(hits[0]!.source).toBe('/stormbreaker.md');
      expect(hits.map((h) => h.source).sort()).toEqual(CHARGERS.map(([s]) => s).sort());
    });

    it('with the server down at add time the document is added for words, marked pending, and embedded by the background job later', async () => {
      const kb = await open();
      server.embeddingsDown = true;
      const result = await kb.add('d', md('/faq.md', FAQ));
      expect(result.status).toBe('added');
      expect(result.embedding).toMatchObject({ state: 'pending', model: 'fake-embed', tokens: 0 });
      expect(result.embedding!.reason).toMatch(/embedding server did not embed .*503/);
      expect((await kb.search('d', 'subscription'))[0]!.source).toBe('/faq.md');
      expect(await kb.meaning!.status()).toMatchObject({ passages: 1, embedded: 0 });
      // A search while the server is down is by words; it does not fail.
      expect(await kb.search('d', 'pay')).toEqual([]);
      server.embeddingsDown = false;
      expect(await kb.meaning!.embedPending()).toMatchObject({ embedded: 1, calls: 1 });
      expect(await kb.meaning!.status()).toMatchObject({ passages: 1, embedded: 1 });
      expect((await kb.search('d', 'pay'))[0]!.source).toBe('/faq.md');
    });

    it('a hiccup of the server is retried; passages go in batches, and the tokens are charged to the budget', async () => {
      const kb = await open();
      const spent: number[] = [];
      const budget: EmbeddingBudget = { room: async () => 1_000_000, spend: async (tokens) => void spent.push(tokens) };
      const before = server.embeddingRequests.length;
      server.embeddingFailures = 1;
      const long = Array.from({ length: 9 }, (_, i) => `## Part ${i}\n\nParagraph ${i} about the ferry crossing and its tolls.`).join('\n\n');
      const result = await kb.add('b', md('/ferry.md', `# Ferry\n\n${long}`), { budget });
      expect(result.embedding).toMatchObject({ state: 'done' });
      const batches = server.embeddingRequests.slice(before).map((r) => r.input.length);
      // One failed try, then the retried batch, then the rest, four passages at a time.
      expect(batches).toEqual([4, 4, 4, 1]);
      expect(spent.reduce((a, b) => a + b, 0)).toBe(result.embedding!.tokens);
      expect(spent).toHaveLength(3);
    });

    it('a spent budget skips embedding (words only) until the document is added again with room', async () => {
      const kb = await open();
      const empty: EmbeddingBudget = { room: async () => 5, spend: async () => undefined };
      const skipped = await kb.add('s', md('/faq.md', FAQ), { budget: empty });
      expect(skipped.embedding).toMatchObject({ state: 'skipped' });
      expect(skipped.embedding!.reason).toMatch(/token budget for today has 5 tokens left/);
      expect(await kb.meaning!.status()).toMatchObject({ embedded: 0, skipped: 1 });
      // The background job leaves it alone: it waits for a moderator to add it again.
      expect((await kb.meaning!.embedPending()).embedded).toBe(0);
      const again = await kb.add('s', md('/faq.md', FAQ));
      expect(again).toMatchObject({ status: 'replaced', embedding: { state: 'done' } });
      expect(await kb.meaning!.status()).toMatchObject({ embedded: 1, skipped: 0 });
    });

    it('a changed model re-embeds every passage in the background, words working meanwhile', async () => {
      const prefix = uniquePrefix('model');
      const first = await open('fake-embed', prefix);
      for (const [source, content] of [['/faq.md', FAQ], ...OTHERS] as const) await first.add('m', md(source, content));
      const second = await open('fake-embed-v2', prefix);
      expect(await second.meaning!.status()).toMatchObject({ model: 'fake-embed-v2', passages: 5, embedded: 0 });
      expect((await second.search('m', 'subscription'))[0]!.source).toBe('/faq.md');
      const totals: number[] = [];
      const done = await second.meaning!.embedPending({ onBatch: (n) => totals.push(n) });
      expect(done.embedded).toBe(5);
      expect(totals).toEqual([5]);
      expect(await second.meaning!.status()).toMatchObject({ embedded: 5 });
      expect(server.embeddingRequests.at(-1)!.model).toBe('fake-embed-v2');
      expect((await second.search('m', 'Do I have to pay for the game?', { limit: 3 })).map((h) => h.source)).toContain('/faq.md');
    });
  });
}
