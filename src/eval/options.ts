/**
 * The evaluation runner's command line: the flags read and checked, every problem said at once (exit 2)
 * before a file is read or a model called.
 */
import { parseArgs } from 'node:util';
import { describeError } from '../errors.js';

export const USAGE = `usage: npm run eval -- <suite.jsonl> [--model A] [--model B] [--persona file] [--tools list] [--repeat N] [--concurrency N] [--min-pass R] [--report out.md]
--model: a model to evaluate; give it again to compare models side by side (default OPENAI_MODEL).
--persona: a file of instructions, as a server's persona (a case's "persona" wins).
--tools: the tools offered, comma-separated (default: all; a case's "tools" wins).
--repeat: run each case N times (default 1). --concurrency: runs at once (default 4).
--min-pass: exit 1 when any model's pass rate is below R (0 to 1, e.g. 0.8).
--report: write the markdown report there and the JSON beside it (default eval-results/<time>.md).`;

export interface EvalOptions {
  suite: string;
  /** Empty: the configured default model. */
  models: string[];
  persona?: string;
  tools?: string[];
  repeat: number;
  concurrency: number;
  minPass?: number;
  report?: string;
}

/** The options, or the exit code when the runner should stop (help printed, or problems said). */
export function readOptions(argv: string[], say: (text: string) => void, help: (text: string) => void): EvalOptions | { exit: number } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        model: { type: 'string', multiple: true, default: [] },
        persona: { type: 'string' },
        tools: { type: 'string' },
        repeat: { type: 'string', default: '1' },
        concurrency: { type: 'string', default: '4' },
        'min-pass': { type: 'string' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    say(`${describeError(error)}\n${USAGE}`);
    return { exit: 2 };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    help(USAGE);
    return { exit: 0 };
  }
  const problems: string[] = [];
  if (positionals.length !== 1) problems.push(positionals.length ? `one suite file at a time (got ${positionals.length})` : 'a suite file is required');
  const whole = (flag: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`--${flag} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return n;
  };
  const repeat = whole('repeat', values.repeat, 1, 100);
  const concurrency = whole('concurrency', values.concurrency, 1, 64);
  const minPass = values['min-pass'] === undefined ? undefined : Number(values['min-pass']);
  if (minPass !== undefined && !(Number.isFinite(minPass) && minPass >= 0 && minPass <= 1)) {
    problems.push(`--min-pass must be a pass rate from 0 to 1, such as 0.8 (got "${values['min-pass']}")`);
  }
  const models = values.model.map((m) => m.trim());
  for (const model of models) if (!model || model.length > 200 || /\s/.test(model)) problems.push(`--model "${model.slice(0, 40)}" is not a model name`);
  if (new Set(models).size !== models.length) problems.push('--model names the same model twice');
  if (models.length > 8) problems.push(`--model can be given at most 8 times (got ${models.length})`);
  const tools = values.tools?.split(',').map((t) => t.trim()).filter(Boolean);
  if (tools && tools.length === 0) problems.push('--tools needs at least one tool name (comma-separated)');
  if (values.report !== undefined && !values.report.trim()) problems.push('--report needs a file path');
  if (problems.length) {
    say(`${problems.join('; ')}\n${USAGE}`);
    return { exit: 2 };
  }
  return { suite: positionals[0]!, models, persona: values.persona, tools, repeat, concurrency, minPass, report: values.report };
}
