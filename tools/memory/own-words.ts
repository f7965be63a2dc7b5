/**
 * Whether a member's own words in this turn ask for what a memory tool is about to do. A tool result (a
 * web page, an MCP tool) can say "remember that…" as often as it likes: it never appears in a member's
 * words, so it can only ever lead to a call that waits for the member's approval. Two checks, both on
 * the member's words with links removed (a pasted URL must not lend its words):
 *
 * - intent: the words ask to remember (or to forget) something, in so many words;
 * - grounding (remember): most of the entry's content words are the member's own, so a request to
 *   remember one thing cannot carry a page's instruction in with it.
 */
import type { Asker } from '../../src/agent/tool.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

const REMEMBER = /\b(remember|memori[sz]e|keep in mind|bear in mind|don'?t forget|do not forget|make a note|take note|note (that|this|down)|save (this|that)|from now on|going forward|always (answer|reply|respond|use|write|call|assume)|never (answer|reply|respond|use|write|call))\b|souviens|retiens|merk dir|merke dir|recuerda|ricorda|onthoud|запомни/iu;
const FORGET = /\b(forget|unremember|remove|delete|erase|drop|no longer|stop remembering)\b|oublie|vergiss|olvida|dimentica|vergeet|забудь/iu;

const URL = /\b(?:https?:\/\/|www\.)\S+/giu;
/** Words that say nothing about what is remembered (how entries get worded in the third person). */
const FILLER = new Set(
  ('a an and are as at be by for from has have he her his i i\'m im in is it its me my of on or our she so that the their them they this to us was we with you your ' +
    'user users member members person prefers prefer preference wants want likes like always please remember remembers note notes also that\'s their them').split(' '),
);

/** Rough stems: enough that "deploys" meets "deploy" and "deployment". */
const stem = (word: string) => (word.length > 5 ? word.slice(0, 5) : word);

function words(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !FILLER.has(w));
}

/** The member's words without links. */
const ownText = (asker: Asker) => asker.words.replace(URL, ' ');

/** Whether the member's words ask to remember something. */
export function asksToRemember(asker: Asker): boolean {
  return REMEMBER.test(ownText(asker));
}

/** Whether the member's words ask to forget something. */
export function asksToForget(asker: Asker): boolean {
  return FORGET.test(ownText(asker));
}

/** How much of `entry` (0 to 1) is in the member's own words; their name does not count either way. */
export function groundedShare(entry: string, asker: Asker): number {
  const name = new Set(words(asker.name).map(stem));
  const wanted = new Set(words(entry.replace(URL, ' ')).map(stem).filter((w) => !name.has(w)));
  if (wanted.size === 0) return 0;
  const said = new Set(words(ownText(asker)).map(stem));
  let found = 0;
  for (const word of wanted) if (said.has(word)) found++;
  return found / wanted.size;
}

/** How much of an entry must be the member's own words for their request to cover it. */
export const GROUNDED_SHARE = 0.6;

/** Whether this member's own words this turn ask to remember `entry`. */
export function askedToRemember(asker: Asker, entry: string): boolean {
  return asksToRemember(asker) && groundedShare(entry, asker) >= GROUNDED_SHARE;
}

/**
 * The asker a memory call is for: the one named (`member`, by name or id), else the one whose words ask
 * for it (`asked`), else the only asker. An error sentence when it cannot be told.
 */
export function ownerOf(askers: readonly Asker[], member: string | undefined, asked: (asker: Asker) => number): Asker | { error: string } {
  const names = askers.map((a) => a.name).join(', ');
  let candidates = askers;
  if (member !== undefined) {
    const wanted = member.trim().replace(/^@/, '').toLowerCase();
    candidates = askers.filter((a) => a.id === wanted || a.name.toLowerCase() === wanted);
    if (candidates.length === 0) return { error: `"${member.slice(0, TEXT_CAPS.echoShort)}" is not one of the people this turn answers (${names}).` };
  }
  const ranked = candidates.map((a) => ({ a, share: asked(a) })).filter((r) => r.share > 0).sort((x, y) => y.share - x.share);
  if (ranked[0]) return ranked[0].a;
  if (candidates.length === 1) return candidates[0]!;
  return { error: `Several people are asking here (${names}): say whose memory this is for with \`member\`.` };
}
