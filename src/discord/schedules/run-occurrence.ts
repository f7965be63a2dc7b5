/**
 * A scheduled run, as a turn: the one place schedules call the turn pipeline. The run is the owner's
 * question, in the owner's scope at run time (their roles now, so their tools, limits and approvals
 * now); the pipeline opens its thread once it has admitted the run (turn/place.ts) and tells `placed`.
 */
import type { NewsChannel, TextChannel, ThreadChannel } from 'discord.js';
import type { RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { TurnOutcome } from '../turn/outcome.js';
import type { Turns } from '../turn/pipeline.js';
import type { ScheduledPlace } from '../turn/record.js';

/** One occurrence to run: whose, where its rules come from, the question, and where it posts. */
export interface OccurrenceTurn {
  scope: RunScope;
  author: Author;
  question: string;
  logFields: Record<string, string | undefined>;
  channel: TextChannel | NewsChannel;
  thread?: ThreadChannel;
  headline: string;
  threadName: string;
  note?: string;
  placed(where: ScheduledPlace): Promise<void>;
}

export async function runOccurrence(turns: Pick<Turns, 'start' | 'checkInput'>, run: OccurrenceTurn): Promise<TurnOutcome> {
  const input = turns.checkInput(run.scope, run.question);
  if (!input.ok) return { kind: 'refused', message: input.message };
  const { scope, author, logFields, channel, thread, headline, threadName, note, placed } = run;
  return turns.start({ kind: 'schedule', request: { scope, author, text: input.text, logFields }, channel, ...(thread ? { thread } : {}), headline, threadName, ...(note ? { note } : {}), placed });
}
