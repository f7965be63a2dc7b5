/**
 * SQLite's full-text search (FTS5) as the knowledge and thread indexes use it: one tokenizer, and the
 * MATCH expressions built from words that src/knowledge/query-terms.ts already reduced (never query
 * syntax: each word is a quoted phrase).
 */

/** The tokenizer every FTS5 table here uses. */
export const FTS5_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/**
 * The FTS5 expression for `terms` within one collection: the collection's key token AND any of the
 * terms in the title/heading or body columns. Terms are double-quoted strings (they contain no quote,
 * but any would be doubled), so FTS5 reads each as a plain phrase.
 */
export function fts5Match(collectionKey: string, terms: string[]): string {
  const quoted = terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
  return `ckey : "${collectionKey}" AND {heading_text body} : (${quoted})`;
}

/** The FTS5 expression: the server's key AND any of the words (each a quoted phrase, never syntax). */
export function threadMatch(key: string, terms: string[]): string {
  return `gkey : "${key}" AND body : (${terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')})`;
}
