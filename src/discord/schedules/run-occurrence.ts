/**
 * A scheduled run, as a turn: the one place schedules call the turn pipeline. The run is the owner's
 * question, in the owner's scope at run time (their roles now, so their tools, limits and approvals
 * now); the pipeline opens its thread once it has admitted the run (turn/place.ts). What only a schedule
 * needs rides on the origin's hooks: where the run posted (`placed`), and, just before its first model
 * call, its claim on the occurrence (`begin`): one another process took over ends the run here, its
 * thread saying so, with no model call.
 */
import type { RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { TurnTarget } from '../posting/target.js';
import { TAKEN_OVER_NOTE } from '../text/schedule-text.js';
import type { ScheduledPlace, TurnOrigin } from '../turn/origin.js';
import type { TurnOutcome } from '../turn/outcome.js';
import type { Turns } from '../turn/pipeline.js';

/** One occurrence to run: whose, where its rules come from, the question, and where it posts (as the schedule origin says). */
export type OccurrenceTurn = Omit<Extract<TurnOrigin, { kind: 'schedule' }>, 'kind' | 'request' | 'placed' | 'beforeRun' | 'ended'> & {
  scope: RunScope;
  author: Author;
  question: string;
  logFields: Record<string, string | undefined>;
  /** Told where the run posts once its thread is open (a one-thread schedule keeps it), or why it cannot. */
  placed(where: ScheduledPlace): Promise<void>;
  /**
   * Asked just before the run's first model call (a run by hand has none): false when the run must
   * not be made, because another process took its occurrence over (scheduler.ts).
   */
  begin?(): Promise<boolean>;
};

export async function runOccurrence(turns: Pick<Turns, 'start' | 'checkInput'>, run: OccurrenceTurn): Promise<TurnOutcome> {
  const input = turns.checkInput(run.scope, run.question);
  if (!input.ok) return { kind: 'refused', message: input.message };
  const { scope, author, question: _asked, logFields, placed, begin, ...place } = run;
  return turns.start({
    kind: 'schedule',
    request: { scope, author, text: input.text, logFields },
    ...place,
    // A scheduled run always posts in a thread (place.ts), or says why it could not open one.
    placed: (where) => placed('unable' in where ? where : { threadId: where.place.kind === 'thread' ? where.place.threadId : where.place.channelId }),
    ...(begin ? { beforeRun: async (target: TurnTarget) => ((await begin()) ? undefined : takenOver(target)) } : {}),
  });
}

/** A run whose occurrence another process took over: its thread says so rather than stay empty. */
async function takenOver(target: TurnTarget): Promise<TurnOutcome> {
  await target.send({ content: TAKEN_OVER_NOTE }).catch(() => undefined);
  return { kind: 'busy', message: TAKEN_OVER_NOTE };
}
