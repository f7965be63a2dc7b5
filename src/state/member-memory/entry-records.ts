/**
 * A member memory entry as it is stored: one entry of the member's log, JSON with a format version, and
 * the tombstone a forgotten entry becomes. Entry text is untrusted (a member typed it, a model worded
 * it): it is cleaned, made one line and capped before it is stored, so whatever reads it gets clean text.
 */
import { z } from 'zod';
import { cleanText } from '../../agent/clean-text.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** The version entries are written in. */
export const ENTRY_VERSION = 1;

/** How an entry came to be stored: the member's own words asked for it, or the member approved it. */
export type EntryOrigin = 'asked' | 'approved';

/** One thing a member asked the bot to remember, in one server. */
export interface MemoryEntry {
  /** Short id, unique among the member's entries (`/memory forget entry:`, the Forget button). */
  id: string;
  text: string;
  /** Used in team turns answering several members too (`/memory share`); otherwise only for its owner. */
  shared: boolean;
  /** Epoch milliseconds when it was stored. */
  at: number;
  how: EntryOrigin;
}

/** Caps: about 300 characters an entry, 50 entries a member. */
export interface MemoryLimits {
  maxEntries: number;
  maxChars: number;
}

export const MEMORY_LIMITS: MemoryLimits = { maxEntries: 50, maxChars: TEXT_CAPS.memoryNote };

const EntrySchema = z.object({
  v: z.number().int(),
  id: z.string().min(1).max(20),
  text: z.string(),
  shared: z.boolean(),
  at: z.number(),
  how: z.enum(['asked', 'approved']),
});
const TombstoneSchema = z.object({ v: z.number().int(), gone: z.string(), at: z.number() });

/** A raw log entry, read back: an entry, a tombstone, or something unreadable (skipped). */
export type DecodedEntry = { kind: 'entry'; entry: MemoryEntry } | { kind: 'gone' } | { kind: 'unreadable' };

export function encodeEntry(entry: MemoryEntry): string {
  return JSON.stringify({ v: ENTRY_VERSION, ...entry });
}

/** A forgotten entry's place in the log: unique (its id and when), so a compare-and-swap never mistakes one for another. */
export function encodeTombstone(id: string, at: number): string {
  return JSON.stringify({ v: ENTRY_VERSION, gone: id, at });
}

export function decodeEntry(raw: string): DecodedEntry {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'unreadable' };
  }
  if (TombstoneSchema.safeParse(value).success) return { kind: 'gone' };
  const parsed = EntrySchema.safeParse(value);
  if (!parsed.success) return { kind: 'unreadable' };
  const { v: _v, ...entry } = parsed.data;
  return { kind: 'entry', entry };
}

/**
 * Entry text as it is stored: invisible and spoofing characters removed, one line (newlines and runs of
 * spaces become one space, so a note cannot start a line of its own in a prompt), at most `maxChars`
 * characters (cut with an ellipsis).
 */
export function oneLineEntry(text: string, maxChars: number): { text: string; shortened: boolean } {
  const line = cleanText(text).replace(/\s+/gu, ' ').trim();
  const chars = [...line];
  if (chars.length <= maxChars) return { text: line, shortened: false };
  return { text: `${chars.slice(0, maxChars - 1).join('').trimEnd()}…`, shortened: true };
}

/** Two entries say the same when their words are the same, whatever the case and punctuation. */
export function sameWords(a: string, b: string): boolean {
  const words = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
  return words(a) === words(b);
}
