/**
 * One-line descriptions of steps for people (terminal and Discord): `calculate(2 + 2)` reads better
 * than `calculate({"expression":"2 + 2"})`. Arguments come from the model, so they may be anything
 * JSON can hold: nested 10,000 deep (where `JSON.stringify` runs out of stack) or megabytes long.
 * Everything here is bounded in depth and size and walks the value with a stack of its own, never by
 * recursion, so describing a call can never throw or take time in proportion to a hostile value.
 */
import { TEXT_CAPS } from './text-caps.js';

/** Deepest nesting shown; deeper values read `…`. */
export const DESCRIBE_MAX_DEPTH = 20;

export interface BoundedJsonOptions {
  /** Most characters of output; past it the text ends with `…`. Default TEXT_CAPS.actionDescription (every view cuts shorter still). */
  maxChars?: number;
  /** Deepest nesting written out; a deeper array or object becomes `…`. Default DESCRIBE_MAX_DEPTH. */
  maxDepth?: number;
}

/** `tool(input)`, showing a single string argument bare and anything else as compact JSON. */
export function describeAction(tool: string, input: unknown, maxChars: number = TEXT_CAPS.actionDescription): string {
  return `${tool}(${describeInput(input, maxChars)})`;
}

/** A call's input for people: a lone string bare, anything else as bounded JSON; never throws. */
export function describeInput(input: unknown, maxChars: number = TEXT_CAPS.actionDescription): string {
  if (typeof input === 'string') return cut(input, maxChars);
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    let count = 0;
    let only: unknown;
    for (const key in input) {
      if (!Object.prototype.hasOwnProperty.call(input, key)) continue;
      if (++count > 1) break;
      only = (input as Record<string, unknown>)[key];
    }
    if (count === 0) return '';
    if (count === 1 && typeof only === 'string') return cut(only, maxChars);
  }
  return boundedJson(input, { maxChars });
}

/**
 * `value` as compact JSON, at most `maxChars` long and `maxDepth` deep (deeper parts and the cut end
 * read `…`). Iterative, and it reads only as much of the value as it writes: a 1 MB string costs as
 * much as the characters shown, an array of a million items as many items as fit.
 */
export function boundedJson(value: unknown, options: BoundedJsonOptions = {}): string {
  const maxChars = Math.max(1, options.maxChars ?? TEXT_CAPS.actionDescription);
  const maxDepth = options.maxDepth ?? DESCRIBE_MAX_DEPTH;
  let out = '';
  // Work still to write, last first: literal text, or a value at a depth.
  const work: Array<{ text: string } | { value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (work.length > 0) {
    if (out.length >= maxChars) return `${head(out, maxChars - 1)}…`;
    const next = work.pop()!;
    if ('text' in next) {
      out += next.text;
      continue;
    }
    const { value: v, depth } = next;
    const room = maxChars - out.length;
    if (typeof v === 'string') out += JSON.stringify(v.length > room ? head(v, room) : v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean') out += String(v);
    else if (typeof v === 'bigint') out += String(v);
    else if (v === null || typeof v !== 'object') out += 'null';
    else if (depth >= maxDepth) out += '…';
    else if (Array.isArray(v)) {
      // Each item takes at least one character, so no more than `room` of them can show.
      const items = Math.min(v.length, room);
      work.push({ text: v.length > items ? ',…]' : ']' });
      for (let i = items - 1; i >= 0; i--) {
        work.push({ value: v[i], depth: depth + 1 });
        if (i > 0) work.push({ text: ',' });
      }
      out += '[';
    } else {
      const keys: string[] = [];
      let more = false;
      for (const key in v) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        if (keys.length >= room) {
          more = true;
          break;
        }
        keys.push(key);
      }
      work.push({ text: more ? ',…}' : '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push({ value: readField(v, keys[i]!), depth: depth + 1 });
        const key = keys[i]!;
        work.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key.length > room ? head(key, room) : key)}:` });
      }
      out += '{';
    }
  }
  return out.length > maxChars ? `${head(out, maxChars - 1)}…` : out;
}

/** The first `n` UTF-16 units of `text`, one fewer where the cut would split a surrogate pair. */
function head(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** A property, or null where reading it throws (a getter on a value that did not come from JSON). */
function readField(object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key];
  } catch {
    return null;
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${head(text, max - 1)}…` : text;
}
