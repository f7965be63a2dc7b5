/**
 * How a turn begins, as data: what the person did (a command, a form, a button, a message) and what it
 * carries. The pipeline reads an origin twice, in one place each: where the turn posts (place.ts) and
 * what the person hears back when it ends (reply.ts). A new way to ask is a new case here and in those two.
 */
import type { ButtonInteraction, ChatInputCommandInteraction, ModalSubmitInteraction, ThreadChannel } from 'discord.js';
import type { TurnTarget } from '../posting/target.js';
import type { AskedAbout } from '../pending-asks.js';
import type { TurnMessage } from './record.js';

/** The person's message that starts the turn, and what to log it by. */
export interface TurnRequest extends TurnMessage {
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
}

export type TurnOrigin =
  /** `/ask`: in a channel a new thread on its reply, in a thread that thread, in a DM the interaction. */
  | { kind: 'ask'; interaction: ChatInputCommandInteraction; request: TurnRequest }
  /** Ask about this message: a new thread on that message (or the thread it is in), privately acknowledged. */
  | { kind: 'ask-about'; interaction: ModalSubmitInteraction; about: AskedAbout; request: TurnRequest }
  /** Continue past the step limit: the same thread, from its memory. */
  | { kind: 'continue'; interaction: ButtonInteraction; thread: ThreadChannel; request: TurnRequest }
  /**
   * A message in a bot thread: it waits while the thread is busy and is answered with every other
   * message waiting there by the thread's next turn (follow-up-batches.ts).
   */
  | {
      kind: 'follow-up';
      thread: TurnTarget;
      request: TurnRequest;
      /** Acknowledge that a turn took the message (a reaction under it). Never throws. */
      taken(): void;
      /** Say something under the message (why it was not taken). Never throws. */
      tell(text: string): Promise<void>;
    };

/** The origins that get a turn of their own (a follow-up joins its thread's next one). */
export type QuestionOrigin = Exclude<TurnOrigin, { kind: 'follow-up' }>;
