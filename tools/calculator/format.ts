/**
 * Turns what mathjs evaluated into the text the model sees, and refuses anything that is not a plain
 * mathematical value. Strings are the reason: `"@everyone"`, `concat(...)`, `format(...)` or a function's
 * source would otherwise pass straight into the Discord thread, so only numbers, units, matrices,
 * booleans, complex numbers and fractions come back.
 */
import type { MathJsInstance } from 'mathjs';

/** What the worker sends back for one expression: the result as text, or why there is none. */
export type EvaluatorReply = { ok: true; text: string } | { ok: false; message: string };

/** Most elements a matrix result may have; a bigger one is summarised instead of printed. */
export const MAX_RESULT_ELEMENTS = 1_000;
/** Longest formatted result. */
export const MAX_RESULT_CHARS = 2_000;
/** Significant digits shown: enough for any answer, few enough to hide binary noise (0.1 + 0.2). */
export const PRECISION = 14;

/** The instance's own type tests and formatter (the worker loads mathjs once, as a bundle). */
type MathTools = Pick<MathJsInstance, 'format' | 'isBigNumber' | 'isComplex' | 'isFraction' | 'isMatrix' | 'isResultSet' | 'isUnit'>;

/** Why the `index`th shown value is Infinity, -Infinity or NaN; undefined for a finite one. */
export type NonFiniteExplainer = (index: number, value: unknown) => string | undefined;

/**
 * Check `value` is a mathematical value and format it, or say why it cannot be shown. A value that is
 * not finite is followed by the reason `explain` gives, in brackets.
 */
export function describeResult(value: unknown, math: MathTools, explain?: NonFiniteExplainer): EvaluatorReply {
  const values = math.isResultSet(value) ? (value as unknown as { entries: unknown[] }).entries : [value];
  if (values.length === 0) {
    return { ok: false, message: 'There is no result: every statement ended with ";". Remove the last ";".' };
  }
  const lines: string[] = [];
  for (const [index, item] of values.entries()) {
    const problem = refusal(item, math);
    if (problem) return { ok: false, message: problem };
    const reason = explain?.(index, item);
    lines.push(reason ? `${formatValue(item, math)} (${reason})` : formatValue(item, math));
  }
  const text = lines.join('\n');
  if (text.length > MAX_RESULT_CHARS) {
    return { ok: false, message: `The result is ${text.length} characters long, too long to show. Ask for a summary such as sum(...), size(...) or one element.` };
  }
  return { ok: true, text };
}

function isScalar(value: unknown, math: MathTools): boolean {
  const type = typeof value;
  return type === 'number' || type === 'boolean' || type === 'bigint' ||
    math.isBigNumber(value) || math.isComplex(value) || math.isFraction(value) || math.isUnit(value);
}

/** Why `value` may not be returned, or undefined when it may. */
function refusal(value: unknown, math: MathTools): string | undefined {
  if (isScalar(value, math)) return undefined;
  if (typeof value === 'string') {
    return 'The calculator only returns numbers, units, matrices and booleans, and this result is text. Calculate a number instead.';
  }
  if (typeof value === 'function') {
    return 'The result is a function, not a value. Call it, e.g. f(x) = x^2; f(3).';
  }
  if (math.isMatrix(value) || Array.isArray(value)) {
    const size = (math.isMatrix(value) ? value.size() : shapeOf(value)) as number[];
    const count = size.reduce((product, n) => product * n, 1);
    if (count > MAX_RESULT_ELEMENTS) {
      return `The result is a ${size.join('×')} matrix (${count} elements), too large to show. Ask for a summary such as sum(...), size(...) or one element.`;
    }
    const elements = math.isMatrix(value) ? (value.toArray() as unknown[]) : value;
    const bad = elements.flat(Infinity).find((element) => !isScalar(element, math));
    return bad === undefined ? undefined : 'The matrix holds something other than numbers, units or booleans, which the calculator does not return.';
  }
  if (value === undefined || value === null) return 'The expression has no value. Give a calculation such as 2 * 3.';
  return 'The result is not a number, unit, matrix or boolean, so the calculator does not return it.';
}

/** Dimensions of a nested array along its first elements; a ragged array is caught by the element check. */
function shapeOf(array: unknown[]): number[] {
  const size: number[] = [];
  let level: unknown = array;
  while (Array.isArray(level)) {
    size.push(level.length);
    level = level[0];
  }
  return size;
}

function formatValue(value: unknown, math: MathTools): string {
  // Exact integers read better than 9.007199254741e+15 and are what "big number" questions want.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (math.isBigNumber(value) && value.isInteger() && value.precision(true) <= 64) return value.toFixed();
  return math.format(value, { precision: PRECISION });
}
