/**
 * A scheduled run, as a turn: the one place schedules call the turn pipeline. The run is the owner's
 * question, in the owner's scope at run time (their roles now, so their tools, limits and approvals
 * now); the pipeline opens its thread once it has admitted the run (turn/place.ts) and tells `placed`.
 */
import type { RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { TurnOutcome } from '../turn/outcome.js';
import type { Turns } from '../turn/pipeline.js';
import type { TurnOrigin } from '../turn/record.js';

/** One occurrence to run: whose, where its rules come from, the question, and where it posts (as the schedule origin says). */
export type OccurrenceTurn = Omit<Extract<TurnOrigin, { kind: 'schedule' }>, 'kind' | 'request'> & {
  scope: RunScope;
  author: Author;
  question: string;
  logFields: Record<string, string | undefined>;
};

export async function runOccurrence(turns: Pick<Turns, 'start' | 'checkInput'>, run: OccurrenceTurn): Promise<TurnOutcome> {
  const input = turns.checkInput(run.scope, run.question);
  if (!input.ok) return { kind: 'refused', message: input.message };
  const { scope, author, question: _asked, logFields, ...place } = run;
  return turns.start({ kind: 'schedule', request: { scope, author, text: input.text, logFields }, ...place });
}
