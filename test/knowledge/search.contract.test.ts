/**
 * Search on both index backends: ranking, limits, and queries from people and models that are full of search
 * syntax. No query may ever error, and no operator in it may change what is matched: `-dragon` still
 * finds dragons, `title:dragon` searches for both words, `dragon*` is the word dragon.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentInput, KnowledgeBase } from '../../src/knowledge/index.js';
import { knowledgeTargets, openOn, type OpenedKnowledge } from './helpers/targets.js';

const DOCS: DocumentInput[] = [
  { source: 'hatching.md', format: 'markdown', content: '# Hatching\n\nDragon eggs hatch only when they are buried in lava for three nights.' },
  { source: 'dragons.md', format: 'markdown', content: '# Dragons\n\nA dragon is a large flying creature. Tame a dragon with roasted mutton. Dragons nest on cliffs.' },
  { source: 'fishing.md', format: 'markdown', content: '# Tackle\n\n## Fishing\n\nUse a bamboo rod near the river at dawn.' },
  { source: 'harbour.md', format: 'markdown', content: '# Harbour\n\nBoats leave the harbour every morning. Sailors swap stories about rods, nets and, once in a while, fishing trips far to the north where the water is cold and the days are short.' },
  { source: 'cafe.txt', format: 'text', content: 'The café serves crème brûlée on Fridays.' },
];

/** Operators, filters, stray syntax and odd text, as people and models type them. */
export const HOSTILE_QUERIES = [
  '"', '""', '"dragon', 'dragon"', "'dragon'", '(', ')', '((dragon', 'dragon))', '(dragon OR', 'NEAR(', 'NEAR(dragon lava', 'NEAR(dragon lava, 2)',
  'dragon NEAR/3 lava', '*', 'dragon*', '*dragon', '-', '-dragon', 'dragon -lava', 'OR', 'AND', 'NOT', 'dragon OR', 'OR dragon',
  'dragon AND NOT lava', 'AND NOT', 'title:dragon', 'body:lava', 'ckey:anything', '{heading_text body}: dragon', '^dragon', 'dragon + lava',
  ':', 'dragon:', '\\', '\\"', "'; DROP TABLE documents; --", '%', '_', 'dragon % _', '&&', '||', '!', 'dragon & lava | !egg', '<->', 'dragon <-> lava',
  'dragon:*', 'dragon:A', '\u0000', '\u0301\u0301', '🐉', 'dragon 🐉 lava', 'Drachenei', 'дракон', '龍の卵', 'مرحبا', 'e\u0301', '\u202edragon', '\u{E0064}dragon',
  '   ', '', 'x'.repeat(10_000), 'dragon '.repeat(1_500), '"dragon" '.repeat(1_000), '('.repeat(5_000), 'NEAR('.repeat(2_000), 'a'.repeat(200),
];

for (const target of await knowledgeTargets('kb-search')) {
  describe.runIf(target.available)(`search on ${target.kind}`, () => {
    let opened: OpenedKnowledge;
    let kb: KnowledgeBase;

    beforeAll(async () => {
      opened = await openOn(target, 'search');
      kb = opened.kb;
      for (const doc of DOCS) await kb.add('s', doc);
    });
    afterAll(() => opened?.cleanup());

    const sources = async (query: string, limit?: number) => (await kb.search('s', query, { limit })).map((h) => h.source);

    it('ranks the passage with more and rarer query words first', async () => {
      expect((await sources('How do dragon eggs hatch?'))[0]).toBe('hatching.md');
      expect((await sources('taming a dragon'))[0]).toBe('dragons.md');
    });

    it('weighs a heading above a passing mention in a long body', async () => {
      expect(await sources('fishing')).toEqual(['fishing.md', 'harbour.md']);
    });

    it('matches word forms (stemming) and returns at most `limit` passages', async () => {
      expect(await sources('hatches')).toEqual(['hatching.md']);
      expect(await sources('dragon', 1)).toHaveLength(1);
      expect(await sources('dragon lava fishing harbour café')).toHaveLength(5);
      expect(await sources('dragon lava fishing harbour café', 2)).toHaveLength(2);
    });

    it('never answers a query of stop words with every passage', async () => {
      const hits = await kb.search('s', 'the and of');
      for (const hit of hits) expect(hit.text).toMatch(/\b(the|and|of)\b/i);
      expect(hits.length).toBeLessThan(DOCS.length);
    });

    it('returns nothing, without error, for a query with no words', async () => {
      for (const query of ['', '   ', '?!', '"()"']) expect(await kb.search('s', query)).toEqual([]);
    });

    it('never errors on a hostile query', async () => {
      for (const query of HOSTILE_QUERIES) {
        const hits = await kb.search('s', query).catch((error: Error) => {
          throw new Error(`query ${JSON.stringify(query.slice(0, 40))} failed: ${error.message}`);
        });
        expect(Array.isArray(hits)).toBe(true);
      }
    });

    it('reads operators as nothing: the words around them are still searched', async () => {
      for (const query of ['-dragon', 'dragon*', '"dragon', 'NEAR(dragon', 'title:dragon', '(dragon OR', 'NOT dragon', 'dragon AND NOT eggs']) {
        expect(await sources(query), query).toContain('dragons.md');
      }
      // Read as NOT, "lava" would drop hatching.md; read as a plain word, it finds it.
      expect(await sources('dragon AND NOT lava')).toContain('hatching.md');
      expect(await sources('-lava')).toEqual(['hatching.md']);
    });
  });
}

describe('search on SQLite only', () => {
  let opened: OpenedKnowledge;
  beforeAll(async () => {
    opened = await openOn({ kind: 'sqlite', url: 'memory:', available: true }, 'diacritics');
    for (const doc of DOCS) await opened.kb.add('s', doc);
  });
  afterAll(() => opened?.cleanup());

  it('ignores diacritics (unicode61 remove_diacritics 2), both ways', async () => {
    expect((await opened.kb.search('s', 'cafe creme brulee')).map((h) => h.source)).toEqual(['cafe.txt']);
    expect((await opened.kb.search('s', 'drágön')).map((h) => h.source)).toContain('dragons.md');
  });
});
