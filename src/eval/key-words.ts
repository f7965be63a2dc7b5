/**
 * The key words of an answer members rated 👍, for a `contains` check a later answer must pass: what a
 * right answer has to say again, not what any answer says. Numbers first (the result of a sum, a date,
 * a price), then names and long words; none that the question or the thread before it already holds
 * (an answer repeating them would pass), no common words, no links or citation marks. Pure.
 */

/** At most this many: each one must be in the answer, so more of them would fail a right answer worded otherwise. */
const MAX_WORDS = 2;

/** Common words of four letters or more that say nothing about an answer. */
const COMMON = new Set(
  ('about above after again also always answer because been before being below between both could does doing down during each ' +
    'either enough every from have having here into just know like made make many more most much must need never next only other ' +
    'over same should since some such than that their them then there these they thing think this those though through under until ' +
    'upon very want well were what when where whether which while will with within without would your yours yes sure okay thanks ' +
    'note means result answer question example following called using used value')
    .split(' '),
);

const NUMBER = /(?<![\p{L}\p{N}.,])[-−]?\p{N}[\p{N},]*(?:\.\p{N}+)?%?/gu;
const WORD = /\p{L}[\p{L}\p{N}'’-]*\p{L}|\p{L}/gu;

/** Up to two key words of `answer` that `said` (the question, the thread before it) does not already hold, as written; none when nothing stands out. */
export function keyWords(answer: string, said: string): string[] {
  const text = answer
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<?https?:\/\/\S+/g, ' ')
    .replace(/\[\d+\]/g, ' ')
    .replace(/[*_`~|>#]/g, ' ');
  const asked = new Set([...(said.match(WORD) ?? []), ...(said.match(NUMBER) ?? [])].map((w) => w.toLowerCase()));
  const numbers = unique((text.match(NUMBER) ?? []).map((n) => n.replace(/,+$/, '')).filter((n) => !asked.has(n.toLowerCase())));
  if (numbers.length) return numbers.slice(0, MAX_WORDS);
  const words = unique((text.match(WORD) ?? []).filter((w) => [...w].length >= 4 && !COMMON.has(w.toLowerCase()) && !asked.has(w.toLowerCase())));
  // A capitalised word (a name, a place) says more than a long common one; then the longer, then the earlier.
  const score = (w: string) => (/^\p{Lu}/u.test(w) ? 100 : 0) + [...w].length;
  return words
    .map((w, i) => ({ w, i }))
    .sort((a, b) => score(b.w) - score(a.w) || a.i - b.i)
    .slice(0, MAX_WORDS)
    .map(({ w }) => w);
}

/** The first spelling of each, case ignored. */
function unique(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
