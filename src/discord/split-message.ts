/**
 * Split text into Discord messages of at most 2,000 characters, preferring paragraph and line breaks,
 * and never leaving a code fence open across a split: a fence that a chunk leaves open is closed at
 * its end and reopened (with the same language) at the start of the next.
 */

export const MESSAGE_LIMIT = 2000;

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
  return room;
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
