/**
 * A scheduled run, as a turn: the one place schedules call the turn pipeline. The run is the owner's
 * question, in the owner's scope at run time (their roles now, so their tools, limits and approvals
 * now), placed where `place` says once the pipeline has admitted it. Kept alone so that the turn's
 * origin shape changes here and nowhere else.
 */
import type { Author } from '../../state/index.js';
import type { RunScope } from '../../policy/index.js';
import type { TurnOutcome } from '../turn/outcome.js';
import type { TurnPlace, Turns } from '../turn/pipeline.js';

/** One occurrence to run: whose, where its rules come from, the question, and where it posts. */
export interface OccurrenceTurn {
  scope: RunScope;
  author: Author;
  question: string;
  logFields: Record<string, string | undefined>;
  place(text: string): Promise<TurnPlace>;
}

export function runOccurrence(turns: Pick<Turns, 'start'>, run: OccurrenceTurn): Promise<TurnOutcome> {
  return turns.start({ request: { scope: run.scope, author: run.author, text: run.question, logFields: run.logFields }, place: run.place });
}
