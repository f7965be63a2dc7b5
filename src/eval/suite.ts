/**
 * An evaluation suite: a JSON Lines file, one case a line (`{"question": ..., "expect": {...}, "tags": [...]}`).
 * Every line is read before any model is called, and every problem is reported with its line number,
 * so a suite is fixed in one go. Blank lines are skipped. What `/feedback export` writes is a suite:
 * anything a case needs beyond the fields below goes under `meta`, which the runner carries to the report.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { cleanText } from '../agent/clean-text.js';
import { PERSONA_MAX_CHARS } from '../state/guild-settings-schema.js';
import { compileRegex, type Checks } from './checks.js';

/** Longest question (the bot's own QUESTION_MAX_CHARS tops out here too). */
const QUESTION_MAX_CHARS = 100_000;
/** Largest page a case may carry for read_url (the tool reads at most 1 MB). */
const PAGE_MAX_CHARS = 1_000_000;

const text = z.string().trim().min(1, 'must not be empty');
const oneOrMore = z.union([text, z.array(text).min(1)]);

export const CHECK_NAMES = ['contains', 'not_contains', 'regex', 'number', 'tool_called', 'tool_not_called', 'max_steps', 'judge'] as const;

const checksSchema = z.strictObject({
  contains: oneOrMore.optional(),
  not_contains: oneOrMore.optional(),
  regex: oneOrMore.optional(),
  number: z.strictObject({ value: z.number(), tolerance: z.number().min(0).default(0) }).optional(),
  tool_called: oneOrMore.optional(),
  tool_not_called: oneOrMore.optional(),
  max_steps: z.int().min(1).max(100).optional(),
  judge: text.max(4_000).optional(),
});

export const CASE_FIELDS = ['id', 'question', 'expect', 'tags', 'persona', 'tools', 'history', 'pages', 'meta'] as const;

const caseSchema = z.strictObject({
  /** A name for the case in the report (default: its line number). */
  id: text.max(200).optional(),
  question: text.max(QUESTION_MAX_CHARS),
  expect: checksSchema.refine((checks) => Object.values(checks).some((v) => v !== undefined), `needs at least one check (${CHECK_NAMES.join(', ')})`),
  tags: z.array(text.max(100)).max(50).default([]),
  /** The persona of the place the case came from (overrides --persona). */
  persona: z.string().max(PERSONA_MAX_CHARS).optional(),
  /** The tools offered for this case (overrides --tools). */
  tools: z.array(text).optional(),
  /** Earlier messages of the thread, oldest first, before the question. */
  history: z.array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string().max(QUESTION_MAX_CHARS) })).max(100).optional(),
  /** Pages read_url gets for these URLs instead of the network (so a run is repeatable). */
  pages: z.record(z.url({ protocol: /^https?$/ }), z.string().max(PAGE_MAX_CHARS)).optional(),
  /** Anything else (where the case came from, a rating): kept in the report, not read. */
  meta: z.record(z.string(), z.unknown()).optional(),
});

export type CaseInput = z.infer<typeof caseSchema>;

/** One case, read and checked. */
export interface EvalCase extends Omit<CaseInput, 'expect'> {
  /** The case's id, else `line N`. */
  name: string;
  /** Its line in the suite file (1-based). */
  line: number;
  expect: Checks;
}

/** A suite that could not be read: every problem, each naming its line. */
export class SuiteError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Read a suite file; throws SuiteError (missing file, or bad lines). */
export function readSuiteFile(file: string): EvalCase[] {
  let body: string;
  try {
    body = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SuiteError([code === 'ENOENT' ? `${file}: no such file. Give the path of a .jsonl suite (evals/starter.jsonl is one).` : `${file}: cannot be read (${code ?? (error as Error).message}).`]);
  }
  return parseSuite(body, file);
}

/** Parse a suite's text. `file` names it in messages. */
export function parseSuite(body: string, file: string): EvalCase[] {
  const cases: EvalCase[] = [];
  const problems: string[] = [];
  const pages = new Map<string, number>();
  body.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    const where = `${file}:${line}`;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      problems.push(`${where}: not valid JSON (${(error as Error).message}). Each line must be one JSON object.`);
      return;
    }
    const parsed = caseSchema.safeParse(json);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => `${where}: ${describeIssue(issue, json)}`));
      return;
    }
    const { id, expect, ...rest } = parsed.data;
    const bad = badRegexes(expect.regex);
    if (bad.length) return void problems.push(...bad.map((b) => `${where}: expect.regex ${b}`));
    for (const [url, page] of Object.entries(rest.pages ?? {})) {
      const other = pages.get(url);
      // One fetch function serves every case, so a URL may carry one page in the whole suite.
      if (other !== undefined && cases.find((c) => c.line === other)?.pages?.[url] !== page) {
        problems.push(`${where}: pages: ${url} is given a different page on line ${other}; a URL has one page in a suite.`);
      }
      pages.set(url, line);
    }
    // A suite may hold members' words (what /feedback export writes): cleaned as a turn's question is.
    const question = cleanText(rest.question);
    const history = rest.history?.map((m) => ({ ...m, content: cleanText(m.content) }));
    cases.push({ ...rest, question, history, name: id ?? `line ${line}`, line, expect: expect as Checks });
  });
  if (problems.length) throw new SuiteError(problems);
  if (cases.length === 0) throw new SuiteError([`${file}: has no cases (one JSON object a line: {"question": "...", "expect": {"contains": "..."}}).`]);
  return cases;
}

function badRegexes(regex: string | string[] | undefined): string[] {
  return [regex ?? []].flat().flatMap((pattern) => {
    try {
      compileRegex(pattern);
      return [];
    } catch (error) {
      return [`"${pattern}" is not a valid regular expression (${(error as Error).message}).`];
    }
  });
}

/** A zod issue as a sentence naming the field and what to do (`json`: the line, to tell a missing field from a wrong one). */
function describeIssue(issue: z.core.$ZodIssue, json: unknown): string {
  const field = issue.path.join('.') || 'the case';
  if (issue.code === 'unrecognized_keys') {
    const inExpect = issue.path.length === 1 && issue.path[0] === 'expect';
    const known = inExpect ? CHECK_NAMES : issue.path.length === 0 ? CASE_FIELDS : undefined;
    const what = inExpect ? 'unknown check' : 'unknown field';
    return `${what}${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${known ? ` (known: ${known.join(', ')})` : ''}${issue.path.length ? ` in ${field}` : ''}.`;
  }
  const given = issue.path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), json);
  if (issue.code === 'invalid_type' && given === undefined) return `${field} is missing.`;
  return `${field}: ${issue.message}.`;
}
