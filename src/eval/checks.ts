/**
 * The checks of a case's `expect`, over what a run did: its answer, the tools it called, its model
 * calls. Every check must pass; each failure is a sentence saying what was expected and what came.
 * `judge` is graded by a second model (judge.ts); the rest are pure and here.
 */

/** A case's checks, as written in the suite. */
export interface Checks {
  /** Text the answer must contain (case ignored). */
  contains?: string | string[];
  /** Text the answer must not contain (case ignored). */
  not_contains?: string | string[];
  /** A JavaScript regular expression the answer must match: `pattern`, or `/pattern/flags`. */
  regex?: string | string[];
  /** A number the answer must state, within `tolerance` (absolute). */
  number?: { value: number; tolerance: number };
  tool_called?: string | string[];
  tool_not_called?: string | string[];
  /** Most model calls the run may make. */
  max_steps?: number;
  /** A rubric the judge model grades the answer against. */
  judge?: string;
}

/** What a run did, as the checks see it. */
export interface RunOutcome {
  answer: string;
  /** Every tool the run called, in order (repeats included). */
  tools: string[];
  /** Model calls made for reasoning steps. */
  steps: number;
}

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : [value].flat());

/** A pattern as written: `/body/flags`, or a plain pattern (no flags). Throws SyntaxError when invalid. */
export function compileRegex(pattern: string): RegExp {
  const slashed = /^\/(.+)\/([dgimsuvy]*)$/s.exec(pattern);
  return slashed ? new RegExp(slashed[1]!, slashed[2]) : new RegExp(pattern);
}

/** Numbers written in a text: `-3`, `1,234.5`, `1.5e3`, `75%` (as 75); a Unicode minus counts as one. */
export function numbersIn(text: string): number[] {
  const found = text.replace(/\u2212/g, '-').matchAll(/(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?/g);
  return [...found].map((m) => Number(m[0].replace(/,/g, ''))).filter(Number.isFinite);
}

/** The reasons the deterministic checks fail (empty: they all pass). `judge` is not checked here. */
export function failedChecks(checks: Checks, run: RunOutcome): string[] {
  const reasons: string[] = [];
  const answer = run.answer.toLowerCase();
  const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
  for (const want of list(checks.contains)) {
    if (!answer.includes(want.toLowerCase())) reasons.push(`the answer does not contain ${quote(want)}`);
  }
  for (const unwanted of list(checks.not_contains)) {
    if (answer.includes(unwanted.toLowerCase())) reasons.push(`the answer contains ${quote(unwanted)}`);
  }
  for (const pattern of list(checks.regex)) {
    if (!compileRegex(pattern).test(run.answer)) reasons.push(`the answer does not match ${pattern}`);
  }
  if (checks.number) {
    const { value, tolerance } = checks.number;
    const numbers = numbersIn(run.answer);
    if (!numbers.some((n) => Math.abs(n - value) <= tolerance + Number.EPSILON * Math.max(1, Math.abs(value)))) {
      const range = tolerance ? `${value} ± ${tolerance}` : String(value);
      reasons.push(`the answer states no number within ${range} (found ${numbers.length ? numbers.slice(0, 5).join(', ') : 'none'})`);
    }
  }
  for (const tool of list(checks.tool_called)) {
    if (!run.tools.includes(tool)) reasons.push(`${tool} was not called (called: ${run.tools.length ? [...new Set(run.tools)].join(', ') : 'no tool'})`);
  }
  for (const tool of list(checks.tool_not_called)) {
    if (run.tools.includes(tool)) reasons.push(`${tool} was called`);
  }
  if (checks.max_steps !== undefined && run.steps > checks.max_steps) {
    reasons.push(`the run took ${run.steps} model calls (at most ${checks.max_steps} expected)`);
  }
  return reasons;
}

/** Tool names a case's checks name (checked against the known tools before a run). */
export function toolsNamed(checks: Checks): string[] {
  return [...list(checks.tool_called), ...list(checks.tool_not_called)];
}
