/**
 * What a chart spec may be, checked before any rendering: a Vega-Lite object with its data inline,
 * small enough to draw in a moment. Anything that would load a URL (data.url, an image mark, a link, a
 * data: URL) is refused with the reason, so the model can send the data itself. The worker's limits
 * (time, memory) stop whatever gets past these counts; the renderer's loader refuses every load too.
 */
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

/** The limits a spec must keep. */
export interface SpecLimits {
  /** Data rows in all inline datasets together (default 5,000). */
  maxRows: number;
  /** Characters of the spec as JSON (default 1,000,000). */
  maxChars: number;
  /** Largest width or height asked for, in layout pixels (default 2,000). */
  maxSide: number;
}

export const DEFAULT_SPEC_LIMITS: SpecLimits = { maxRows: 5_000, maxChars: 1_000_000, maxSide: 2_000 };

/** Keys that point at something to load or open. */
const URL_KEYS = new Set(['url', 'href']);
/** A string that is a URL of any scheme (data:, http:, file:, javascript:) or protocol-relative. */
const URL_VALUE = /^\s*(?:(?:data|javascript|blob|file):|[a-z][a-z0-9+.-]*:\/\/|\/\/)/i;
/** Marks that load images from URLs. */
const LOADING_MARKS = new Set(['image']);

/** Why the spec cannot be drawn, or undefined when it may be. `spec` is already parsed JSON. */
export function specProblem(spec: unknown, limits: SpecLimits = DEFAULT_SPEC_LIMITS): string | undefined {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return 'The spec must be a Vega-Lite JSON object (with "data", "mark" and "encoding").';
  const size = JSON.stringify(spec).length;
  if (size > limits.maxChars) return `The spec is ${size.toLocaleString('en-US')} characters; at most ${limits.maxChars.toLocaleString('en-US')} are accepted. Aggregate or sample the data first.`;
  let rows = 0;
  const stack: Array<{ value: unknown; path: string }> = [{ value: spec, path: 'spec' }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (URL_VALUE.test(value)) return `${path} is a URL ("${value.slice(0, TEXT_CAPS.specValue)}"): charts cannot load or link anything. Put the data inline as data.values.`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
      continue;
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const at = `${path}.${key}`;
      if (URL_KEYS.has(key)) return `${at}: charts cannot load data or images from a URL. Put the data inline as data.values (at most ${limits.maxRows.toLocaleString('en-US')} rows).`;
      if (key === 'mark' && LOADING_MARKS.has(markType(child) ?? '')) return `${at}: the image mark loads pictures from URLs, which charts cannot do. Use bar, line, point or area.`;
      if ((key === 'width' || key === 'height') && typeof child === 'number' && child > limits.maxSide) return `${at} is ${child}; at most ${limits.maxSide} pixels are allowed.`;
      if (key === 'values' && Array.isArray(child)) rows += child.length;
      if (key === 'sequence' && typeof child === 'object' && child !== null) rows += sequenceLength(child as Record<string, unknown>);
      if (key === 'datasets' && typeof child === 'object' && child !== null) {
        for (const dataset of Object.values(child)) if (Array.isArray(dataset)) rows += dataset.length;
      }
      stack.push({ value: child, path: at });
    }
    if (rows > limits.maxRows) return `The chart has more than ${limits.maxRows.toLocaleString('en-US')} data rows; aggregate or sample the data first.`;
  }
  if (rows === 0) return 'The spec has no inline data: give the data as data.values, e.g. "data": {"values": [{"x": 1, "y": 2}]}.';
  return undefined;
}

function markType(mark: unknown): string | undefined {
  if (typeof mark === 'string') return mark;
  if (typeof mark === 'object' && mark !== null) return String((mark as { type?: unknown }).type ?? '');
  return undefined;
}

/** Rows a sequence generator makes; Infinity when it is malformed (Vega would refuse or loop). */
function sequenceLength(sequence: Record<string, unknown>): number {
  const start = Number(sequence.start);
  const stop = Number(sequence.stop);
  const step = sequence.step === undefined ? 1 : Number(sequence.step);
  if (![start, stop, step].every(Number.isFinite) || step === 0) return Infinity;
  return Math.max(0, Math.ceil((stop - start) / step));
}
