/**
 * A turn that runs a skill: the skill comes with its origin (a skill's run, a scheduled one), or from its
 * thread (a follow-up or a Continue there keeps the instructions the thread began with; an `/ask` in it
 * is a question of its own). A turn that brings one into a thread makes the thread remember it. The tools the run is
 * offered are the skill's list intersected with what the members may use there, read at each step like
 * any run's: a skill never widens access.
 */
import type { SkillRun } from '../../skills/skill-run.js';
import type { TurnDeps } from './deps.js';
import type { NewTurn } from './record.js';

/** The kinds of turn that go on with their thread's skill (the pipeline asks only for these, and for turns that bring one). */
export const KEEPS_THREAD_SKILL: ReadonlySet<NewTurn['kind']> = new Set(['follow-up', 'continue']);

/** The turn with the skill it runs: its own, or its thread's (remembered for the thread when it brings one). */
export async function withSkill(deps: Pick<TurnDeps, 'skills' | 'logger'>, turn: NewTurn, threadId: string | undefined): Promise<NewTurn> {
  const store = deps.skills;
  if (!store || !threadId) return turn;
  const guildId = turn.messages[0]?.scope.guildId;
  if (turn.skill) {
    if (guildId) await store.rememberThread(threadId, guildId, turn.skill).catch((error) => deps.logger.warn({ err: error, ...turn.logFields }, "could not save which skill this thread runs; its follow-ups will not keep the skill's instructions"));
    return turn;
  }
  const kept = await store.threadSkill(threadId).catch((error) => {
    deps.logger.warn({ err: error, ...turn.logFields }, "could not read which skill this thread runs; answering without the skill's instructions");
    return undefined;
  });
  // A thread is in one guild; a record of another would be someone else's.
  return kept && kept.guildId === guildId ? { ...turn, skill: kept.run } : turn;
}

/** The tools a run may use: the members' tools, narrowed to the skill's list when it runs one. */
export function skillTools(allowed: () => Promise<ReadonlySet<string>>, skill: SkillRun | undefined): () => Promise<ReadonlySet<string>> {
  if (!skill) return allowed;
  const mine = new Set(skill.tools);
  return async () => new Set([...(await allowed())].filter((tool) => mine.has(tool)));
}
