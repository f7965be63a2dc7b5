/**
 * Split text into Discord messages of at most 2,000 characters, preferring paragraph and line breaks,
 * and never leaving a code fence open across a split: a fence that a chunk leaves open is closed at
 * its end and reopened (with the same language) at the start of the next. A hard cut (a run with no
 * spaces) falls between grapheme clusters, so no emoji, accent or surrogate pair is cut in half.
 */
import { graphemeBoundary } from '../../agent/text-caps.js';

export const MESSAGE_LIMIT = 2000;
/** Discord's limit on an autocomplete choice's name and value. */
export const CHOICE_LIMIT = 100;

const FENCE = /^\s*```(\S*)\s*$/;

/** Split `text` into chunks of at most `limit` characters. */
export function splitMessage(text: string, limit = MESSAGE_LIMIT): string[] {
  if (text.length <= limit) return [text];
  const chunks: string[] = [];
  let openFence: string | null = null; // the language of the fence open at the end of the last chunk
  let rest = text;
  while (rest.length > 0) {
    const prefix = openFence !== null ? `\`\`\`${openFence}\n` : '';
    // Leave room to close a fence this chunk might leave open.
    const room = limit - prefix.length - 4;
    if (prefix.length + rest.length <= limit) {
      chunks.push(prefix + rest);
      break;
    }
    const cut = cutPoint(rest, room);
    const piece = rest.slice(0, cut).replace(/\s+$/, '');
    rest = rest.slice(cut).replace(/^\n+/, '');
    const fence = fenceAfter(piece, openFence);
    chunks.push(prefix + piece + (fence !== null ? '\n```' : ''));
    openFence = fence;
  }
  return chunks;
}

/** Where to cut within `room` characters: a blank line, else a line break, else a space, else hard. */
function cutPoint(text: string, room: number): number {
  const window = text.slice(0, room);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep);
    if (at > room * 0.5) return at + sep.length;
  }
  return graphemeBoundary(text, room);
}

/** `text` cut to one message (`limit` characters, an ellipsis marking the cut), never inside a grapheme. */
export function fitMessage(text: string, limit = MESSAGE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, graphemeBoundary(text, limit - 1))}…`;
}

/**
 * `text` with a code fence it leaves open closed at its end, so what follows it is not swallowed.
 * Discord opens a block at any triple backtick, not only at a line start, so every one counts.
 */
export function closeOpenFence(text: string): string {
  return (text.match(/```/g) ?? []).length % 2 === 1 ? `${text.replace(/\s+$/, '')}\n\`\`\`` : text;
}

/** The fence language left open after `piece`, given the fence open before it (null: none open). */
function fenceAfter(piece: string, open: string | null): string | null {
  let state = open;
  for (const line of piece.split('\n')) {
    const m = FENCE.exec(line);
    if (m) state = state === null ? (m[1] ?? '') : null;
  }
  return state;
}

/**
 * The start of `text` as a Discord block quote of at most `room` characters (an ellipsis marking a cut),
 * with a code fence the cut leaves open closed inside the quote, so the link or footer after it is not
 * swallowed into a code block.
 */
export function quotePreview(text: string, room: number): string {
  const quote = (body: string) => `> ${closeOpenFence(body).replace(/\n/g, '\n> ')}`;
  let keep = Math.min(text.length, room);
  for (;;) {
    const body = keep >= text.length ? text : `${text.slice(0, graphemeBoundary(text, keep))}…`;
    const quoted = quote(body);
    if (quoted.length <= room || keep <= 1) return quoted;
    // Each quoted line adds "> ", and a closed fence adds a line: take off what overflows, and a little more.
    keep -= quoted.length - room + 1;
  }
}
