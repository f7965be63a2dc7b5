/**
 * PostgreSQL's text search as the knowledge and thread indexes use it: one configuration, and the
 * websearch_to_tsquery input built from words that src/knowledge/query-terms.ts already reduced.
 */

/** The text search configuration: English stemming and stop words. */
export const PG_TS_CONFIG = 'english';

/**
 * Input for websearch_to_tsquery: the terms joined by its `or`. A term can never be an operator: terms
 * hold only letters, digits and marks (no quotes or `-`), and `or` itself is a stop word, dropped.
 */
export function websearchText(terms: string[]): string {
  return terms.filter((t) => t !== 'or').join(' or ');
}
