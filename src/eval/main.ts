/**
 * `npm run eval`: a suite's cases through the bot's engine, tools and protocols (the core `npm run ask`
 * and the bot share), on one model or several side by side, graded and reported. Everything the user
 * gave is checked before any model is called (exit 2); a model below `--min-pass` exits 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { createCore, type Core, type CoreOverrides } from '../core.js';
import { instructionsFor } from '../discord/turn/conversation.js';
import { ConfigError, describeError } from '../errors.js';
import { PERSONA_MAX_CHARS } from '../state/guild-settings-schema.js';
import { toolsNamed } from './checks.js';
import { Judge } from './judge.js';
import { readOptions, type EvalOptions } from './options.js';
import { Progress, type ProgressOutput } from './progress.js';
import { caseRecord, markdownReport, type EvalReport } from './report.js';
import { runCase } from './run-case.js';
import { interleave, runPool } from './schedule.js';
import { summarize } from './stats.js';
import { readSuiteFile, SuiteError, type EvalCase } from './suite.js';

/** Where the runner reads and writes; the CLI passes the process's, tests their own. */
export interface EvalIo {
  env: Record<string, string | undefined>;
  /** Read `.env` from here first (false: not at all). */
  dotenvDir?: string | false;
  cwd: string;
  stdout: (text: string) => void;
  stderr: ProgressOutput;
  now?: () => Date;
  signal?: AbortSignal;
  /** Tests only: replacements for the core's parts (see createCore). */
  core?: CoreOverrides;
}

/** Run the evaluation the command line asks for; resolves to the exit code. */
export async function runEval(argv: string[], io: EvalIo): Promise<number> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const options = readOptions(argv, say, (text) => io.stdout(`${text}\n`));
  if ('exit' in options) return options.exit;
  let config: Config;
  try {
    config = loadConfig({ needDiscord: false, dotenvDir: io.dotenvDir }, io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(`${error.message}\n\nCopy .env.example to .env and fill these in (each is explained in .env.example and the docs/ page it points to).`);
    return 2;
  }
  const input = readInputs(options, io.cwd, say);
  if (!input) return 2;
  const { cases, persona } = input;
  const pages = new Map(cases.flatMap((c) => Object.entries(c.pages ?? {})));
  const core = await createCore(config, { ...io.core, toolbox: { ...io.core?.toolbox, readUrl: { ...io.core?.toolbox?.readUrl, givenPages: (url) => pages.get(url) } } });
  try {
    const models = options.models.length ? options.models : [core.defaultModel];
    const needsJudge = cases.some((c) => c.expect.judge !== undefined);
    const judgeModel = needsJudge ? (config.evaluation?.judgeModel ?? config.model.model) : undefined;
    const problems = [...unknownTools(options, cases, core), ...(await unknownModels([...models, ...(judgeModel ? [judgeModel] : [])], core))];
    if (problems.length) {
      say(problems.join('\n'));
      return 2;
    }
    if (judgeModel && models.includes(judgeModel)) say(`Note: the judge (${judgeModel}) is also a model under test, so it grades its own answers; set EVAL_JUDGE_MODEL to another model.`);
    const judge = judgeModel ? new Judge({ ...config.model, model: judgeModel }) : undefined;
    const judgeUse = { calls: 0, tokens: 0 };
    const jobs = interleave(cases.length, models, options.repeat);
    const now = io.now ?? (() => new Date());
    const started = now();
    const progress = new Progress(io.stderr, jobs.length);
    const runner = {
      engine: core.engine,
      judge,
      instructions: instructionsFor,
      tools: options.tools,
      persona,
      onJudgeUsage: (usage: { totalTokens: number }) => {
        judgeUse.calls++;
        judgeUse.tokens += usage.totalTokens;
      },
    };
    const results = await runPool(jobs, options.concurrency, (job) => withOwnSignal(io.signal, (signal) => runCase(runner, cases[job.caseIndex]!, core.modelFor(job.model), job.repeat, signal)), (r) => progress.tick(r.status));
    const summaries = models.map((model) => summarize(model, results, config.governance.prices));
    const below = (rate: number | null) => options.minPass !== undefined && (rate === null || rate < options.minPass);
    const report: EvalReport = {
      suite: options.suite,
      started_at: started.toISOString(),
      duration_ms: now().getTime() - started.getTime(),
      settings: { models, judge_model: judgeModel ?? null, persona: options.persona ?? null, tools: options.tools ?? null, repeat: options.repeat, concurrency: options.concurrency, min_pass: options.minPass ?? null },
      models: Object.fromEntries(summaries.map((s) => [s.model, { ...s, below_min_pass: below(s.rate) }])),
      judge: judge ? { model: judge.model, ...judgeUse } : null,
      cases: results.map(caseRecord),
    };
    const markdown = markdownReport(report);
    io.stdout(markdown);
    const written = writeReport(report, markdown, options.report, io.cwd, started);
    io.stdout(`\nReport: ${written.md}\nJSON:   ${written.json}\n`);
    if (io.signal?.aborted) return 130;
    return summaries.some((s) => below(s.rate)) ? 1 : 0;
  } finally {
    await core.close();
  }
}

/**
 * `work` with a signal of its own that follows `parent` (Ctrl-C): a run's listeners go with its own
 * signal, where hundreds of runs on the one parent would pile them up on it.
 */
async function withOwnSignal<T>(parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort(parent?.reason);
  if (parent?.aborted) abort();
  parent?.addEventListener('abort', abort, { once: true });
  try {
    return await work(own.signal);
  } finally {
    parent?.removeEventListener('abort', abort);
  }
}

/** The suite and the persona file, or undefined after saying what is wrong. */
function readInputs(options: EvalOptions, cwd: string, say: (text: string) => void): { cases: EvalCase[]; persona?: string } | undefined {
  const problems: string[] = [];
  let cases: EvalCase[] = [];
  try {
    cases = readSuiteFile(path.resolve(cwd, options.suite));
  } catch (error) {
    if (!(error instanceof SuiteError)) throw error;
    problems.push(...error.problems.map((p) => p.replace(path.resolve(cwd, options.suite), options.suite)));
  }
  let persona: string | undefined;
  if (options.persona !== undefined) {
    try {
      persona = fs.readFileSync(path.resolve(cwd, options.persona), 'utf8').trim();
      if (persona.length > PERSONA_MAX_CHARS) problems.push(`--persona ${options.persona}: ${persona.length} characters; a persona holds at most ${PERSONA_MAX_CHARS}, as a server's does.`);
    } catch (error) {
      problems.push(`--persona ${options.persona}: cannot be read (${describeError(error)}).`);
    }
  }
  if (problems.length) {
    say(problems.join('\n'));
    return undefined;
  }
  return { cases, persona: persona || undefined };
}

/** Tool names in --tools, cases' `tools` and their checks that the core does not have. */
function unknownTools(options: EvalOptions, cases: readonly EvalCase[], core: Core): string[] {
  const known = core.engine.tools.map((t) => t.name);
  const list = `Known tools: ${known.join(', ')}.`;
  const unknown = (names: readonly string[]) => [...new Set(names.filter((n) => !known.includes(n)))];
  const problems: string[] = [];
  const flag = unknown(options.tools ?? []);
  if (flag.length) problems.push(`--tools: unknown tool${flag.length > 1 ? 's' : ''} ${flag.join(', ')}. ${list}`);
  for (const c of cases) {
    const named = unknown([...(c.tools ?? []), ...toolsNamed(c.expect)]);
    if (named.length) problems.push(`${options.suite}:${c.line}: unknown tool${named.length > 1 ? 's' : ''} ${named.join(', ')}. ${list}`);
  }
  return problems;
}

/** Models the server does not list (a server that lists none is taken at its word later). */
async function unknownModels(models: readonly string[], core: Core): Promise<string[]> {
  const listed = await core.serverModels();
  if (listed.length === 0) return [];
  const missing = [...new Set(models)].filter((m) => !listed.includes(m));
  if (!missing.length) return [];
  const shown = listed.length > 20 ? `${listed.slice(0, 20).join(', ')} and ${listed.length - 20} more` : listed.join(', ');
  return [`The model server does not have ${missing.map((m) => `"${m}"`).join(', ')} (--model, OPENAI_MODEL or EVAL_JUDGE_MODEL). It lists: ${shown}.`];
}

/** Write the markdown and the JSON beside it; the paths written. */
function writeReport(report: EvalReport, markdown: string, asked: string | undefined, cwd: string, started: Date): { md: string; json: string } {
  const stamp = started.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  const asMarkdown = path.resolve(cwd, asked ?? path.join('eval-results', `${stamp}.md`));
  const base = asMarkdown.replace(/\.md$/i, '');
  const md = base === asMarkdown ? `${base}.md` : asMarkdown;
  const json = `${base}.json`;
  fs.mkdirSync(path.dirname(md), { recursive: true });
  fs.writeFileSync(md, markdown);
  fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  return { md, json };
}
