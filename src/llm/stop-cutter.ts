/**
 * Client-side stop sequences. Many OpenAI-compatible servers ignore `stop` (or apply it only to
 * non-streamed replies), yet the text protocol depends on it: a model that writes its own
 * `Observation:` must not have it trusted. So the streamed text is cut here at the first stop
 * sequence, also one split across chunks (`\nObserv` + `ation`), and the cut text is never passed on.
 * A stop that starts with a letter may come wrapped in emphasis (`**PAUSE**`, `__PAUSE__`): the
 * markers that open it go with it, so no dangling `**` is left at the end of the reply.
 */

/** Emphasis markers at the end of a text, which may open a wrapped stop that has not arrived yet. */
const OPENING_MARKERS = /(?:\*{1,3}|_{1,3})$/;

/**
 * How many characters at the end of `text` could be the start of one of `needles` (a proper
 * prefix of it): those must be held back until the next piece shows whether the needle follows.
 */
export function heldBackLength(text: string, needles: readonly string[]): number {
  let longest = 0;
  for (const needle of needles) {
    const max = Math.min(needle.length - 1, text.length);
    for (let n = max; n > longest; n--) {
      if (text.endsWith(needle.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

/** Feeds text through in pieces; returns what is safe to pass on, and stops for good at a stop sequence. */
export class StopCutter {
  private pending = '';
  private cut = false;
  private readonly stops: string[];
  /** Stops that start with a word character, the kind a model wraps in emphasis (`**PAUSE**`). */
  private readonly wrappable: Set<string>;

  constructor(stops: readonly string[] | undefined) {
    this.stops = (stops ?? []).filter((s) => s.length > 0);
    this.wrappable = new Set(this.stops.filter((s) => /^\w/.test(s)));
  }

  /** True once a stop sequence was seen: everything after it is dropped. */
  get stopped(): boolean {
    return this.cut;
  }

  /** The part of `piece` (with what was held back before) that can be passed on now. */
  push(piece: string): string {
    if (this.cut) return '';
    if (this.stops.length === 0) return piece;
    const text = this.pending + piece;
    let at = -1;
    let found = '';
    for (const stop of this.stops) {
      const i = text.indexOf(stop);
      if (i >= 0 && (at < 0 || i < at)) [at, found] = [i, stop];
    }
    if (at >= 0) {
      this.cut = true;
      this.pending = '';
      const before = text.slice(0, at);
      return this.wrappable.has(found) ? before.replace(OPENING_MARKERS, '') : before;
    }
    let keep = heldBackLength(text, this.stops);
    if (this.wrappable.size > 0) keep += OPENING_MARKERS.exec(text.slice(0, text.length - keep))?.[0].length ?? 0;
    this.pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** At the end of the reply: what was held back was not a stop sequence after all. */
  flush(): string {
    const rest = this.cut ? '' : this.pending;
    this.pending = '';
    return rest;
  }
}
