/**
 * Terminal runner: `npm run ask -- [--protocol auto|native|text] [--max-steps N] [--json] [--step] "question"`.
 * Same config, engine and tools as the bot, so a model server and the tools can be tried without Discord.
 */
import { parseArgs } from 'node:util';
import { loadConfigOrReport } from '../config.js';
import { describeError } from '../errors.js';
import { STEP_LIMIT } from '../agent/engine.js';
import type { ProtocolSetting } from '../agent/types.js';
import { createCore } from '../core.js';
import { askInTerminal, printJson, TerminalPrinter } from './print.js';

const USAGE = 'usage: npm run ask -- [--protocol auto|native|text] [--max-steps N] [--json] [--step] "question"';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        protocol: { type: 'string' },
        'max-steps': { type: 'string' },
        json: { type: 'boolean', default: false },
        step: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${describeError(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const question = positionals.join(' ').trim();
  const problems: string[] = [];
  if (!question) problems.push('a question is required');
  if (values.protocol && !['auto', 'native', 'text'].includes(values.protocol)) problems.push('--protocol must be auto, native or text');
  const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < STEP_LIMIT.min || maxSteps > STEP_LIMIT.max)) {
    problems.push(`--max-steps must be a whole number from ${STEP_LIMIT.min} to ${STEP_LIMIT.max}`);
  }
  if (values.step && values.json) problems.push('--step and --json cannot be used together');
  if (problems.length) {
    console.error(`${problems.join('; ')}\n${USAGE}`);
    return 2;
  }

  const config = loadConfigOrReport({ needDiscord: false });
  if (!config) return 2;

  const { engine, close } = await createCore(config);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const run = engine.run({
      messages: [{ role: 'user', content: question }],
      protocol: values.protocol as ProtocolSetting | undefined,
      maxSteps,
      signal: controller.signal,
      beforeTool: values.step ? askInTerminal : undefined,
    });
    const printer = new TerminalPrinter();
    for await (const event of run) {
      if (values.json) printJson(event);
      else printer.print(event);
    }
    const result = await run.result;
    if (result.answer !== undefined) return 0;
    if (!values.json) console.error(result.error?.message ?? `The run ended without an answer (${result.reason}).`);
    return result.reason === 'aborted' ? 130 : 1;
  } finally {
    await close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
