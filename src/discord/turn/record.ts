/**
 * The turn record: one turn, made once when it is admitted and passed whole to the end. Who asks and
 * whom the turn answers, where it posts, the messages, the place's settings read once: plain data, so
 * the run journal and a turn resumed after an approval (in another process, after a restart) read the
 * same thing. What is live beside it (the usage claim, the channel objects) is held by the pipeline.
 */
import type { DisplayLevel, RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { AttachmentRef } from '../files/attachments.js';
import type { MessageRef, PlaceRef } from '../posting/target.js';

export type { MessageRef, PlaceRef } from '../posting/target.js';

/** A question's text after the checks that need no storage (`turns.checkInput`): cleaned, not blank, not too long. */
export type CheckedText = string & { readonly __checked: unique symbol };

/** One person's message in a turn. */
export interface TurnMessage {
  author: Author;
  /** Where they asked: their roles and channel decide the tools and limits. */
  scope: RunScope;
  text: CheckedText;
  /** Files that came with the message, read for the model when the turn runs. */
  attachments?: readonly AttachmentRef[];
  /** Text the question is about (the message behind "Ask about this message"), put after it. */
  context?: string;
  /** The Discord message it came in, when it came in one: deleting that message takes it back. */
  messageId?: string;
}

/** The settings of the place, read once when the turn runs. */
export interface TurnSettings {
  display: DisplayLevel;
  maxSteps: number;
  model: string;
  persona?: string;
}

/** How a turn began (what its origin hears back depends on it). */
export type TurnKind = 'ask' | 'ask-about' | 'continue' | 'follow-up' | 'resume';

export interface TurnRecord {
  /** The turn's id: its run's id while it runs, its waiting record's while it waits for a person. */
  id: string;
  kind: TurnKind;
  /** The messages answered, in arrival order (several when people posted while the thread was busy). */
  messages: TurnMessage[];
  /** The member whose claim pays for the turn (their slot; their share of the tokens): they may Continue it. */
  payer: string;
  place: PlaceRef;
  /** The message that announced the turn where it was asked (the /ask reply), if any. */
  reply?: MessageRef;
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
  settings: TurnSettings;
}

/** Everyone whose message the turn answers, once each: each may stop it and decide its approvals. */
export function askersOf(turn: Pick<TurnRecord, 'messages'>): string[] {
  return [...new Set(turn.messages.map((m) => m.author.id))];
}

/** The message of the member who pays (the first of theirs), for their scope and name. */
export function payerMessage(turn: Pick<TurnRecord, 'messages' | 'payer'>): TurnMessage {
  return turn.messages.find((m) => m.author.id === turn.payer) ?? turn.messages[0]!;
}

/** The conversation the turn belongs to: its thread, or none (an interaction's webhook keeps no memory). */
export function conversationOf(place: PlaceRef): string | undefined {
  return place.kind === 'thread' ? place.threadId : undefined;
}
