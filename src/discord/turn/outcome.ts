/**
 * How a turn ended, one of six ways, so whoever started it (a command, a follow-up, a button) only turns
 * the outcome into a reply and never reads half a dozen optional fields its own way.
 */
import type { Message } from 'discord.js';
import type { AgentResult } from '../../agent/types.js';

export type TurnOutcome =
  /** The answer is posted; `answerMessage` is its first message. */
  | { kind: 'answered'; result: AgentResult; answerMessage: Message }
  /** Not admitted (the question, DMs, a usage limit): `message` says why. Nothing was started. */
  | { kind: 'refused'; message: string }
  /** The thread's queue gave up waiting (it was busy too long, or failed). Nothing was posted. */
  | { kind: 'busy'; message: string }
  /** The bot cannot answer there (a thread closed, a permission missing), found before any model call. */
  | { kind: 'unable'; message: string }
  /**
   * The run was stopped where it could post no more (a thread closed, a permission taken away) or by
   * `/reset`; without `result` when `/reset` gave up a waiting message before any run took it.
   */
  | { kind: 'stopped'; message: string; result?: AgentResult }
  /**
   * No answer reached the thread: the run failed (the thread says so), its memory could not be read, or
   * Discord refused the answer (`result.answer` holds it, so it can be shown elsewhere).
   */
  | { kind: 'failed'; message: string; result?: AgentResult };

/** The sentence to show the person for an outcome that has one to tell them privately, else undefined. */
export function privateNotice(outcome: TurnOutcome): string | undefined {
  return outcome.kind === 'refused' || outcome.kind === 'busy' || outcome.kind === 'unable' ? outcome.message : undefined;
}
