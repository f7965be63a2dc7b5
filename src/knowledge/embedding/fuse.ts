/**
 * Words and meaning, one ranking: reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009). Each
 * passage scores the sum of 1 / (K + rank) over the rankings it is in, so a passage both searches rank
 * well comes first, and one only meaning finds (a question worded differently from the document) still
 * gets in. RRF looks at ranks alone, so it cannot see that the words singled one passage out: a
 * product's exact name in one passage gives it a word score far above the next, and meaning (which
 * knows no product names) may rank it anywhere. So when the best word hit leads the next by WORD_LEAD
 * or more (or is the only one), it stays first; fusion orders everything after it.
 */
import type { RawHit } from '../../storage/search-index.js';

/** The constant of the original paper; it damps the difference between the first few ranks. */
export const RRF_K = 60;
/** How far the best word hit must lead the second (score ratio) to keep first place. */
export const WORD_LEAD = 1.5;
/** The lowest place (1-based) the best meaning hit may take. */
export const MEANING_SEAT = 3;

/** The fused ranking of `words` and `meaning` (each best first), at most `limit` hits. */
export function fuseRankings(words: readonly RawHit[], meaning: readonly RawHit[], limit: number): RawHit[] {
  const fused = new Map<string, { hit: RawHit; score: number }>();
  const add = (hits: readonly RawHit[]) => hits.forEach((hit, rank) => {
    const entry = fused.get(hit.passageId);
    const share = 1 / (RRF_K + rank + 1);
    if (entry) entry.score += share;
    else fused.set(hit.passageId, { hit, score: share });
  });
  add(words);
  add(meaning);
  const ranked = [...fused.values()].sort((a, b) => b.score - a.score || Number(a.hit.passageId) - Number(b.hit.passageId));
  const first = words[0];
  const leads = first && (words.length === 1 || first.score >= WORD_LEAD * Math.max(words[1]!.score, Number.MIN_VALUE));
  if (leads) {
    const at = ranked.findIndex((r) => r.hit.passageId === first.passageId);
    ranked.unshift(...ranked.splice(at, 1));
  }
  const closest = meaning[0];
  const at = closest ? ranked.findIndex((r) => r.hit.passageId === closest.passageId) : -1;
  if (at > MEANING_SEAT - 1) ranked.splice(MEANING_SEAT - 1, 0, ...ranked.splice(at, 1));
  return ranked.slice(0, limit).map(({ hit, score }) => ({ ...hit, score }));
}
