/**
 * Reciprocal rank fusion of the word and meaning rankings, the rule that keeps an exact name first,
 * nearest-vector selection, and the progress lines of a long add.
 */
import { describe, expect, it } from 'vitest';
import { fuseRankings, RRF_K } from '../../src/knowledge/embedding/fuse.js';
import { fromBytes, fromPgFloat4Array, nearestRows, normalize, toBytes } from '../../src/storage/vectors.js';
import { toLoaded, VectorCache, type VectorSource } from '../../src/storage/vector-cache.js';
import { duration, progressText } from '../../src/knowledge/progress-text.js';
import type { RawHit } from '../../src/storage/search-index.js';

const hit = (id: string, score = 1): RawHit => ({ passageId: id, documentId: id, title: id, headings: [], text: id, source: id, score });

describe('fuseRankings', () => {
  it('puts first what both rankings rank well, and lets in what only meaning finds', () => {
    const fused = fuseRankings([hit('a', 3), hit('b', 2.9), hit('c', 2.8)], [hit('b'), hit('d'), hit('a')], 4);
    expect(fused.map((h) => h.passageId)).toEqual(['b', 'a', 'd', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
  });

  it('keeps the best word hit first when it leads the next by half again (an exact name), which plain RRF would not', () => {
    // Words: the product page far ahead; meaning: the product page only fourth.
    const words = [hit('product', 9), hit('chargers', 3), hit('cables', 2.5)];
    const meaning = [hit('chargers'), hit('cables'), hit('battery'), hit('product')];
    expect(fuseRankings(words, meaning, 4).map((h) => h.passageId)).toEqual(['product', 'chargers', 'cables', 'battery']);
    // Without the lead (scores close), fusion alone decides: the passage both rank high wins.
    expect(fuseRankings([hit('product', 3.1), hit('chargers', 3), hit('cables', 2.5)], meaning, 4)[0]!.passageId).toBe('chargers');
  });

  it('gives the best meaning hit a seat in the first three, though every passage both rankings hold would outrank it', () => {
    const words = Array.from({ length: 6 }, (_, i) => hit(`w${i}`, 2 - i * 0.1));
    const meaning = [hit('free'), ...words.slice().reverse()];
    const fused = fuseRankings(words, meaning, 5).map((h) => h.passageId);
    expect(fused.indexOf('free')).toBe(2);
    expect(fused).toHaveLength(5);
  });

  it('is the word ranking alone when meaning found nothing, and the meaning ranking when words found nothing', () => {
    expect(fuseRankings([hit('a', 2), hit('b', 1.9)], [], 5).map((h) => h.passageId)).toEqual(['a', 'b']);
    expect(fuseRankings([], [hit('x'), hit('y')], 1).map((h) => h.passageId)).toEqual(['x']);
  });
});

describe('vectors', () => {
  it('are unit length, survive their SQLite and PostgreSQL encodings, and are ranked by dot product', () => {
    const v = normalize([3, 4]);
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(fromBytes(toBytes(v)))).toEqual(Array.from(v));
    // array_send of '{0.5,0.25}'::real[]
    const sent = Buffer.from('0000000100000000000002bc000000020000000100000004' + '3f000000' + '00000004' + '3e800000', 'hex');
    expect(Array.from(fromPgFloat4Array(sent))).toEqual([0.5, 0.25]);
    const matrix = Float32Array.from([1, 0, 0, 1, 0.6, 0.8]);
    expect(nearestRows(matrix, 2, Float32Array.from([0, 1]), 2).map((r) => r.row)).toEqual([1, 2]);
    expect(nearestRows(matrix, 3, Float32Array.from([0, 1]), 2)).toEqual([]);
  });
});

describe('VectorCache', () => {
  it('catches up with a changed collection by reading only newer vectors, dropping removed ones', async () => {
    const rows = new Map<number, Float32Array>([[1, normalize([1, 0])], [2, normalize([0, 1])], [3, normalize([1, 1])]]);
    let version = 1;
    const reads: number[] = [];
    const source: VectorSource = {
      version: async () => String(version),
      load: async (_c, _m, afterId = 0) => {
        reads.push(afterId);
        return toLoaded([...rows].filter(([id]) => id > afterId).map(([id, vector]) => ({ id: String(id), vector })));
      },
      ids: async () => [...rows.keys()].map(String),
    };
    const cache = new VectorCache();
    const near = (q: number[]) => cache.nearest(source, 'c', 'm', normalize(q), 2).then((r) => r.map((x) => x.id));
    expect(await near([0, 1])).toEqual(['2', '3']);
    expect(await near([0, 1])).toEqual(['2', '3']);
    rows.delete(2);
    rows.set(4, normalize([0, 1]));
    version = 2;
    expect(await near([0, 1])).toEqual(['4', '3']);
    // One whole load, then one catching up from id 3: never the whole collection again.
    expect(reads).toEqual([0, 3]);
  });
});

describe('progressText', () => {
  it('says what is done of how much, and the time left once the pace is known', () => {
    let now = 0;
    const text = progressText(() => now);
    expect(text.line({ stage: 'reading', done: 1, total: 400, unit: 'pages' })).toBe('1 of 400 pages read (0%)');
    now = 10_000;
    expect(text.line({ stage: 'reading', done: 100, total: 400, unit: 'pages' })).toBe('100 of 400 pages read (25%), about 30 s left');
    now = 12_000;
    expect(text.line({ stage: 'embedding', done: 64, total: 1_200, unit: 'passages' })).toBe('64 of 1,200 passages embedded (5%)');
    now = 14_000;
    expect(text.line({ stage: 'embedding', done: 128, total: 1_200, unit: 'passages' })).toBe('128 of 1,200 passages embedded (10%), about 0 min left'.replace('0 min', duration((2_000 / 128) * 1_072)));
    expect(duration(3_900_000)).toBe('1 h 5 min');
  });
});
