/**
 * Documents to passages: each section (see sections.ts) is packed into passages of about
 * `targetChars` (a few hundred tokens at ~4 characters a token), never across a heading, each starting
 * with a little of the previous one's end so that a fact split by a boundary is still found whole
 * in one of them. Oversized blocks are cut at a line, sentence or word end.
 */
import { splitSections, type Section, type SectionSyntax } from './sections.js';

export interface Passage {
  /** Headings above the passage, outermost first. */
  headings: string[];
  text: string;
  /** Where in the document: `p. 12` for a page of a PDF; absent for documents without pages. */
  location?: string;
}

export interface ChunkSizes {
  targetChars: number;
  maxChars: number;
  overlapChars: number;
}

/** ~250 tokens a passage, at most ~400, with ~40 tokens of overlap. */
export const CHUNK_SIZES: ChunkSizes = { targetChars: 1_000, maxChars: 1_600, overlapChars: 160 };

/** Split `text` into passages; also returns the title its headings suggest. */
export function chunkText(text: string, syntax: SectionSyntax, sizes: ChunkSizes = CHUNK_SIZES): { passages: Passage[]; title?: string } {
  const { sections, title } = splitSections(text, syntax);
  return { passages: sections.flatMap((section) => packSection(section, sizes)), title };
}

/** One section's blocks packed into passages. */
export function packSection(section: Section, sizes: ChunkSizes): Passage[] {
  const pieces = section.blocks.flatMap((block) => (block.length > sizes.maxChars ? splitLong(block, sizes) : [block]));
  const passages: Passage[] = [];
  let current: string[] = [];
  let length = 0;
  let fresh = false;
  const emit = () => {
    passages.push({ headings: section.headings, text: current.join('\n\n') });
    const overlap = tail(current.at(-1)!, sizes.overlapChars);
    current = overlap ? [overlap] : [];
    length = overlap.length;
    fresh = false;
  };
  for (const piece of pieces) {
    if (fresh && (length >= sizes.targetChars || length + 2 + piece.length > sizes.maxChars)) emit();
    current.push(piece);
    length += (current.length > 1 ? 2 : 0) + piece.length;
    fresh = true;
  }
  if (fresh) passages.push({ headings: section.headings, text: current.join('\n\n') });
  return passages;
}

/** Cut a block longer than `maxChars` into pieces of about `targetChars`. */
function splitLong(block: string, sizes: ChunkSizes): string[] {
  const pieces: string[] = [];
  let rest = block;
  const floor = Math.floor(sizes.targetChars / 2);
  while (rest.length > sizes.maxChars) {
    const head = rest.slice(0, sizes.targetChars);
    let cut = head.lastIndexOf('\n');
    if (cut < floor) cut = Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! ')) + 1;
    if (cut < floor) cut = head.lastIndexOf(' ');
    if (cut < floor) cut = sizes.targetChars;
    // Never between the two halves of a surrogate pair.
    if (/[\uD800-\uDBFF]/.test(rest[cut - 1] ?? '')) cut -= 1;
    const piece = rest.slice(0, cut).trim();
    if (piece) pieces.push(piece);
    rest = rest.slice(cut);
  }
  if (rest.trim()) pieces.push(rest.trim());
  return pieces;
}

/** The end of `text`, at most `max` characters, starting at a sentence or word start. */
function tail(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const end = text.slice(-max);
  const sentence = end.search(/[.!?]\s+\S|\n\S/);
  if (sentence !== -1 && sentence < max * 0.6) return end.slice(sentence + 1).trim();
  const space = end.indexOf(' ');
  return space === -1 ? '' : end.slice(space + 1).trim();
}
