/**
 * A query, from a person or a model, is only ever a bag of words. It is reduced to its words (runs of
 * letters, digits and combining marks), and only those words, each quoted, reach FTS5's MATCH or
 * PostgreSQL's websearch_to_tsquery: operators (OR, AND NOT, NEAR), column filters, `*`, `-`, `^`,
 * quotes and parentheses never do. Words are OR-ed, so a question phrased differently from the
 * document still finds it; BM25 / ts_rank_cd weigh rare words above common ones. Each backend quotes the
 * words in its own dialect (src/storage/sqlite/full-text.ts, src/storage/postgres/full-text.ts).
 */

/** More words than any real question has; the rest of a 10,000-character query is ignored. */
export const MAX_TERMS = 32;
/** A longer "word" is noise (a hash, a URL squashed together) and cannot match a real token anyway. */
const MAX_TERM_LENGTH = 64;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Small English function-word list: dropped unless the query has nothing else. */
const STOPWORDS = new Set(
  ('a an and are as at be but by can could did do does for from had has have how i if in into is it its ' +
    'me my of on or our so than that the their them then there these they this to was we were what when ' +
    'where which who whom why will with would you your yours not no nor any all about am been being')
    .split(' '),
);

/** The distinct words of `query`, lower-cased, stop words dropped (unless that leaves none). */
export function queryTerms(query: string): string[] {
  const words = (query.normalize('NFC').toLowerCase().match(WORD) ?? []).filter((w) => w.length <= MAX_TERM_LENGTH);
  const distinct = [...new Set(words)];
  const content = distinct.filter((w) => !STOPWORDS.has(w));
  return (content.length ? content : distinct).slice(0, MAX_TERMS);
}

/**
 * A window of `text` of at most `max` characters where the terms are densest, cut at word edges, with
 * an ellipsis where text was left out.
 */
export function snippet(text: string, terms: string[], max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  const hits: number[] = [];
  for (const term of terms) {
    for (let at = lower.indexOf(term); at !== -1 && hits.length < 500; at = lower.indexOf(term, at + term.length)) hits.push(at);
  }
  hits.sort((a, b) => a - b);
  let bestStart = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (hits[j]! < hits[i]! - max * 0.8) j++;
    if (i - j + 1 > bestCount) {
      bestCount = i - j + 1;
      bestStart = hits[j]!;
    }
  }
  let start = Math.max(0, Math.min(bestStart - Math.floor(max * 0.15), flat.length - max));
  if (start > 0) start = flat.indexOf(' ', start) + 1 || start;
  let end = Math.min(flat.length, start + max - 2);
  if (end < flat.length) end = flat.lastIndexOf(' ', end) > start ? flat.lastIndexOf(' ', end) : end;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
