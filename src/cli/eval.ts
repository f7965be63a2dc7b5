/**
 * Evaluation runner: `npm run eval -- <suite.jsonl> [--model A] [--model B] [--persona file] [--tools list]
 * [--repeat N] [--concurrency N] [--min-pass R] [--report out.md]`. The work is in src/eval/ (main.ts);
 * this file hands it the process: its arguments, environment, streams, Ctrl-C and exit code.
 */
import { describeError } from '../errors.js';
import { runEval } from '../eval/main.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

runEval(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: process.stderr,
  signal: controller.signal,
}).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
