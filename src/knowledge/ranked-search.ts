/**
 * The ranked passages of one search: by words alone, or, with meaning search on, words and meaning
 * fused (fuse.ts). Channel-bound passages the searcher may not see are left out after ranking, so more
 * are read (four times as many each round, up to MAX_SCAN) until `limit` are found or the matches run
 * out. Each channel is asked about once per search, and the query is embedded once.
 */
import type { Embedder } from './embedding/embedder.js';
import { fuseRankings } from './embedding/fuse.js';
import type { RawHit, SearchIndex } from '../storage/search-index.js';
import type { SearchOptions } from './types.js';

/** Most ranked passages read to find `limit` the searcher may see, when channel-bound ones rank first. */
const MAX_SCAN = 500;
/** Each ranking is read this many times deeper than asked, so fusion has passages to weigh. */
const FUSION_DEPTH = 4;

export interface RankedSearch {
  index: SearchIndex;
  collection: string;
  terms: string[];
  query: string;
  limit: number;
  canView?: SearchOptions['canView'];
  embedder?: Embedder;
}

/** The best `limit` passages the searcher may see. */
export async function rankedHits(search: RankedSearch): Promise<RawHit[]> {
  const { index, collection, terms, limit, canView, embedder } = search;
  let queryVector: Promise<Float32Array | undefined> | undefined;
  const ranked = async (scan: number): Promise<RawHit[]> => {
    if (!embedder) return index.search(collection, terms, scan);
    const depth = Math.min(MAX_SCAN, Math.max(20, scan * FUSION_DEPTH));
    queryVector ??= embedder.embedQuery(search.query);
    const [words, vector] = await Promise.all([index.search(collection, terms, depth), queryVector]);
    // The server did not answer in time: this search is by words, as without meaning search.
    if (!vector) return words.slice(0, scan);
    const meaning = await index.vectors.nearest(collection, embedder.model, vector, depth);
    return fuseRankings(words, meaning, scan);
  };
  if (!canView) return ranked(limit);
  const answers = new Map<string, Promise<boolean>>();
  const mayView = (channelId: string) => {
    let answer = answers.get(channelId);
    if (!answer) answers.set(channelId, (answer = Promise.resolve(canView(channelId)).catch(() => false)));
    return answer;
  };
  for (let scan = limit; ; scan = Math.min(MAX_SCAN, scan * 4)) {
    const hits = await ranked(scan);
    const shown = await Promise.all(hits.map((hit) => (hit.channelId ? mayView(hit.channelId) : true)));
    const visible = hits.filter((_, i) => shown[i]);
    if (visible.length >= limit || hits.length < scan || scan >= MAX_SCAN) return visible.slice(0, limit);
  }
}
