/**
 * Past-thread search on both index backends: exchanges found by their words, one hit per thread with a
 * link and an excerpt, only in the server searched and only in channels the searcher may view, gone
 * after `forget` (`/reset`) and after the conversation TTL, and never an error for a hostile query.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeText, openThreadIndex, type ThreadExchange, type ThreadIndex } from '../../src/knowledge/thread-index/index.js';
import { POSTGRES_URL } from '../state/helpers/targets.js';
import { knowledgeTargets, uniquePrefix } from './helpers/targets.js';

const G = '800000000000000001';
const OTHER_G = '800000000000000002';
const DAY = 86_400_000;
/** Operators and stray syntax as people and models type them (search.contract.test.ts has the long list). */
const HOSTILE_QUERIES = ['"', '"cache', '(', 'NEAR(cache bug, 2)', '*', 'cache*', '-cache', 'OR', 'AND NOT', 'gkey:anything', 'body: cache', '^cache', "'; DROP TABLE threads; --", '%', '_', 'cache:*', '<->', '\u0000', '🐉', '   ', '', 'x'.repeat(10_000), '('.repeat(5_000)];

for (const target of await knowledgeTargets('threads')) {
  describe.runIf(target.available)(`past-thread search on ${target.kind}`, () => {
    const prefix = uniquePrefix('threads');
    let t = Date.UTC(2025, 0, 10);
    const now = () => new Date(t);
    let index: ThreadIndex;
    const exchange = (threadId: string, text: string, over: Partial<ThreadExchange> = {}): ThreadExchange => ({
      guildId: G, channelId: 'general', threadId, title: `Thread ${threadId}`, link: `https://discord.com/channels/${G}/${threadId}`, text, at: now(), ...over,
    });

    beforeAll(async () => {
      index = await openThreadIndex(target.url, { baseDir: process.cwd(), prefix, ttlMs: 30 * DAY, now });
      await index.add(exchange('1', 'alice: the cache bug in the deploy pipeline\nthreadwise: clear the build cache before deploying'));
      await index.add(exchange('1', 'bob: did clearing the cache fix it?\nthreadwise: yes, the stale cache was the cause'));
      await index.add(exchange('2', 'carol: raid night schedule\nthreadwise: raids are on Friday'));
      await index.add(exchange('3', 'mod: the cache password for the mods vault', { channelId: 'mods' }));
      await index.add(exchange('4', 'dave: cache settings on the other server', { guildId: OTHER_G }));
    });
    afterAll(async () => {
      await index.close();
      if (target.kind === 'postgres') {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS ${prefix}thread_exchanges, ${prefix}threads`);
        await client.end();
      }
    });

    it('finds a thread by its words, once however many exchanges match, with its link and an excerpt', async () => {
      const hits = await index.search(G, 'cache bug fix', { limit: 5 });
      expect(hits.map((h) => h.threadId)).toEqual(['1', '3']);
      expect(hits[0]).toMatchObject({ title: 'Thread 1', link: `https://discord.com/channels/${G}/1`, channelId: 'general' });
      expect(hits[0]!.excerpt).toMatch(/cache/);
      expect(await index.search(G, 'raiding schedules')).toMatchObject([{ threadId: '2' }]);
      expect(await index.search(G, 'unrelated words')).toEqual([]);
      expect(await index.hasThreads(G)).toBe(true);
      expect(await index.hasThreads('800000000000000009')).toBe(false);
    });

    it('searches one server only, and only channels the searcher may view', async () => {
      expect((await index.search(OTHER_G, 'cache')).map((h) => h.threadId)).toEqual(['4']);
      const asked: string[] = [];
      const hits = await index.search(G, 'cache', { canView: (channelId) => (asked.push(channelId), channelId === 'general') });
      expect(hits.map((h) => h.threadId)).toEqual(['1']);
      expect(new Set(asked)).toEqual(new Set(['general', 'mods']));
      // A viewer that fails counts as "cannot view".
      expect(await index.search(G, 'cache', { canView: () => Promise.reject(new Error('no member')) })).toEqual([]);
    });

    it('forgets a thread (reset), and a thread idle past the TTL', async () => {
      await index.add(exchange('5', 'erin: the kettle recipe'));
      expect((await index.search(G, 'kettle')).map((h) => h.threadId)).toEqual(['5']);
      await index.forget('5');
      expect(await index.search(G, 'kettle')).toEqual([]);
      await index.add(exchange('6', 'frank: the teapot recipe'));
      t += 31 * DAY;
      expect(await index.search(G, 'teapot')).toEqual([]);
      expect(await index.hasThreads(G)).toBe(false);
      // Used again after its expiry, the thread starts afresh: its old words are not found again.
      await index.add(exchange('6', 'frank: now about saucers'));
      expect((await index.search(G, 'saucers')).map((h) => h.threadId)).toEqual(['6']);
      expect(await index.search(G, 'teapot')).toEqual([]);
    });

    it('never fails on a query full of search syntax', async () => {
      for (const query of HOSTILE_QUERIES) await expect(index.search(G, query)).resolves.toBeInstanceOf(Array);
    });
  });
}

describe('what of an exchange is indexed', () => {
  it('what people said with their names and the answers, not tool calls or their results', () => {
    const text = exchangeText([
      { role: 'user', content: 'How do I\n deploy?\u200b', author: { name: 'Alice' } },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c' }] },
      { role: 'tool', content: 'SECRET PAGE TEXT' },
      { role: 'user', content: [{ type: 'text', text: 'also this' }, { type: 'image_url', image_url: { url: 'x' } }], author: { name: 'Bob' } },
      { role: 'assistant', content: 'Use fly deploy.' },
    ]);
    expect(text).toBe('Alice: How do I deploy?\nBob: also this\nthreadwise: Use fly deploy.');
  });
});
