/**
 * How a turn ended, one of seven ways. The pipeline turns it into what the person hears (reply.ts),
 * once; whoever started the turn only gets it back to know.
 */
import type { Message } from 'discord.js';

export type TurnOutcome =
  /** The answer is posted: `answer` is its text, `answerMessage` its first message. */
  | { kind: 'answered'; answer: string; answerMessage: Message }
  /** Not admitted (the question, DMs, a usage limit): `message` says why. Nothing was started. */
  | { kind: 'refused'; message: string }
  /** The thread's queue gave up waiting (it was busy too long, or failed). Nothing was posted. */
  | { kind: 'busy'; message: string }
  /** The bot cannot answer there (a thread closed, a permission missing), found before any model call. */
  | { kind: 'unable'; message: string }
  /**
   * The run was stopped where it could post no more (a thread closed, a permission taken away), by
   * `/reset`, or because its question was deleted; also a waiting message given up before any run took it.
   */
  | { kind: 'stopped'; message: string }
  /**
   * No answer reached the thread: the run failed (the thread says so), its memory could not be read, or
   * Discord refused the answer (`answer` holds it then, so it can be shown where it was asked).
   */
  | { kind: 'failed'; message: string; answer?: string }
  /** The run stopped at a tool call that waits for a person; it goes on when they decide (approvals.ts). */
  | { kind: 'waiting'; message: string };

/** The sentence to show the person for an outcome that has one to tell them privately, else undefined. */
export function privateNotice(outcome: TurnOutcome): string | undefined {
  return outcome.kind === 'refused' || outcome.kind === 'busy' || outcome.kind === 'unable' ? outcome.message : undefined;
}
