/**
 * How a found passage is named: its document's title, the headings above it, and its page when the
 * document has pages (`Rulebook › Setup, p. 12`). One home, so `npm run kb -- search`, the
 * `search_knowledge` tool's output and the answer's Sources line name a passage alike.
 */
import type { SearchHit } from './types.js';

/**
 * `hit`'s place: title and `headings` (default: all of the passage's) joined by ` › `, then its page.
 * Untrusted text, as the hit's fields are: a caller that shows it in Discord escapes it there.
 */
export function passagePlace(hit: Pick<SearchHit, 'title' | 'headings' | 'location'>, headings: readonly string[] = hit.headings): string {
  return [hit.title, ...headings].join(' › ') + (hit.location ? `, ${hit.location}` : '');
}
