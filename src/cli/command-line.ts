/**
 * What the terminal runners share about their command line: flags parsed strictly, `--help` printing
 * the usage (exit 0), and a bad flag printing what was wrong and the usage (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describeError } from '../errors.js';

type WithHelp = ParseArgsConfig & { options: { help: { type: 'boolean'; short: 'h'; default: false } } };

/** The parsed command line, or the exit code when the runner should stop here. */
export function readCommandLine<T extends WithHelp>(config: T, usage: string): ReturnType<typeof parseArgs<T>> | { exit: number } {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    console.error(`${describeError(error)}\n${usage}`);
    return { exit: 2 };
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return { exit: 0 };
  }
  return parsed;
}
