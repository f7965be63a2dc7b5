/**
 * The vectors of the fake embedding server: a small table of words to concepts, so words that mean the
 * same thing land close together (pay, free, price, cost; colour, color, colourblind), as a real
 * embedding model puts them, and any other word in one of a few hashed dimensions of its own at a
 * lower weight (so an unknown name still counts for a little, as real models' lexical overlap does).
 * Deterministic: the same text always gives the same vector. What `text-embedding-3-small` would give
 * is not imitated; only that meaning, not spelling, decides what is near.
 */

const CONCEPTS: Record<string, string[]> = {
  price: ['pay', 'paid', 'pays', 'paying', 'payment', 'cost', 'costs', 'price', 'prices', 'free', 'purchase', 'buy', 'money', 'charge', 'fee', 'fees', 'subscription', 'euros', 'dollars', 'cheap', 'expensive'],
  colour: ['color', 'colour', 'colors', 'colours', 'colorblind', 'colourblind', 'colorblindness', 'colourblindness', 'palette'],
  power: ['charger', 'chargers', 'charging', 'cable', 'cables', 'power', 'battery', 'batteries', 'usb', 'watt', 'watts', 'plug'],
  weather: ['storm', 'storms', 'rain', 'wind', 'weather', 'forecast', 'flood', 'flooding'],
  travel: ['bridge', 'ferry', 'road', 'traffic', 'crossing', 'toll', 'tolls', 'train'],
  food: ['recipe', 'cook', 'cooking', 'bake', 'baking', 'bread', 'flour', 'oven', 'dinner', 'meal'],
  game: ['game', 'games', 'play', 'player', 'players', 'match', 'level', 'levels'],
};
const WORD_CONCEPT = new Map(Object.entries(CONCEPTS).flatMap(([concept, words], i) => words.map((w) => [w, i] as const)));
const CONCEPT_COUNT = Object.keys(CONCEPTS).length;
/** Dimensions for words the table does not know, each word hashed into one. */
const HASHED = 32;
export const FAKE_DIMENSIONS = CONCEPT_COUNT + HASHED;
const UNKNOWN_WEIGHT = 0.35;
const STOP = new Set('a an and are as at be by can do does for from have how i if in is it my of on or the to we what when where which who will with you your there this that no not'.split(' '));

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return (h >>> 0) % HASHED;
}

/** The fake vector of `text` (not normalized: the client normalizes, as it must for real servers). */
export function fakeEmbedding(text: string, dimensions = FAKE_DIMENSIONS): number[] {
  const vector: number[] = Array.from({ length: FAKE_DIMENSIONS }, () => 0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(word)) continue;
    const concept = WORD_CONCEPT.get(word);
    if (concept !== undefined) vector[concept]! += 1;
    else vector[CONCEPT_COUNT + hash(word)]! += UNKNOWN_WEIGHT;
  }
  // A text of stop words only still gets a direction, as real models give every input one.
  if (!vector.some((v) => v !== 0)) vector[FAKE_DIMENSIONS - 1] = 1;
  return vector.slice(0, dimensions);
}

/** Tokens as the fake counts them: one a word, as a real server reports its own count. */
export function fakeTokens(text: string): number {
  return (text.match(/\S+/g) ?? []).length;
}
