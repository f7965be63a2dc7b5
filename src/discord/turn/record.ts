/**
 * How a turn begins (its origin: what the person did, as data) and the turn record: one turn, made once
 * when it is admitted and passed whole to the end. Who asks and
 * whom the turn answers, where it posts, the messages, the place's settings read once: plain data, so
 * the run journal and a turn resumed after an approval (in another process, after a restart) read the
 * same thing. What is live beside it (the usage claim, the channel objects) is held by the pipeline.
 *
 * A question's text enters a turn only through `checkInput`, the one maker of `CheckedText`: it must say
 * something and fit QUESTION_MAX_CHARS (checked here, whatever the Discord client allowed), and a DM is
 * answered only with ALLOW_DMS. These checks need no storage, so an origin makes them before it
 * acknowledges and refuses privately at once.
 */
import { randomUUID } from 'node:crypto';
import { cleanText, isBlankQuestion } from '../../agent/clean-text.js';
import type { ButtonInteraction, ChatInputCommandInteraction, Message, ModalSubmitInteraction, NewsChannel, TextChannel, ThreadChannel } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { DisplayLevel, RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { AttachmentRef } from '../files/attachments.js';
import type { MessageRef, PlaceRef, TurnTarget } from '../posting/target.js';
import type { AskedAbout } from '../pending-asks.js';
import type { PlaceRules, Rules } from '../rules/rules.js';
import type { TurnOutcome } from './outcome.js';

export type { MessageRef, PlaceRef } from '../posting/target.js';

/** A question's text after the checks that need no storage (`turns.checkInput`): cleaned, not blank, not too long. */
export type CheckedText = string & { readonly __checked: unique symbol };

/** What a question's text is checked against (QUESTION_MAX_CHARS, ALLOW_DMS). */
export interface InputRules {
  allowDms: boolean;
  questionMaxChars: number;
}

/**
 * The checks that need no storage (the text, DMs): instant, so a command can refuse privately before it
 * acknowledges. The cleaned text, or the sentence to show.
 */
export function checkInput(rules: InputRules, scope: RunScope, rawText: string): { ok: true; text: CheckedText } | { ok: false; message: string } {
  const text = cleanText(rawText).trim() as CheckedText;
  if (isBlankQuestion(text)) return { ok: false, message: 'Your message has nothing I can read (it is empty, or only invisible or control characters). Write your question in words.' };
  if ([...text].length > rules.questionMaxChars) {
    return { ok: false, message: `Your question is ${[...text].length.toLocaleString('en-US')} characters long; I take at most ${rules.questionMaxChars.toLocaleString('en-US')}. Shorten it, or split it into a few questions.` };
  }
  if (!scope.guildId && !rules.allowDms) {
    return { ok: false, message: 'I answer questions in servers, not in direct messages. Use `/ask` in a server we share.' };
  }
  return { ok: true, text };
}

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
  /** Lines for the thread about what came with it (an earlier message left out of a reply chain). */
  notices?: readonly string[];
}

/** The settings of the place, read once when the turn runs. */
export interface TurnSettings {
  display: DisplayLevel;
  maxSteps: number;
  model: string;
  persona?: string;
}

/** How a turn began (what its origin hears back depends on it). */
export type TurnKind = 'ask' | 'ask-about' | 'continue' | 'follow-up' | 'mention' | 'schedule' | 'resume';

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

/** Where a turn that has its place posts, as the record keeps it (and the live target beside it). */
export interface Placement {
  target: TurnTarget;
  place: PlaceRef;
  reply?: MessageRef;
}

/**
 * The record of a turn whose time has come (its thread's queue reached it): checked when it runs, not
 * when it was queued (a thread can be locked or lose a permission meanwhile), with the place's settings
 * read now (`here`: the rules the turn was admitted under, when it has them already). Or the outcome
 * when the bot cannot answer there: no model call is made.
 */
export async function makeRecord(
  ctx: { rules: Pick<Rules, 'at'>; logger: Pick<Logger, 'warn'> },
  turn: Pick<TurnRecord, 'kind' | 'messages' | 'payer' | 'logFields'>,
  placed: Placement,
  here: PlaceRules = ctx.rules.at(turn.messages[0]!.scope),
): Promise<{ ok: true; record: TurnRecord } | { ok: false; outcome: TurnOutcome }> {
  const problem = placed.target.preflight?.();
  if (problem) {
    ctx.logger.warn({ ...turn.logFields, problem }, 'no run: the bot cannot answer there (no model call made)');
    return { ok: false, outcome: { kind: 'unable', message: problem } };
  }
  const settings = await here.settings();
  const record: TurnRecord = {
    id: randomUUID().slice(0, 8),
    kind: turn.kind,
    messages: turn.messages,
    payer: turn.payer,
    place: placed.place,
    ...(placed.reply ? { reply: placed.reply } : {}),
    logFields: turn.logFields,
    settings: { display: settings.display, maxSteps: settings.maxSteps, model: settings.model, ...(settings.persona ? { persona: settings.persona } : {}) },
  };
  return { ok: true, record };
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

/*
 * How a turn begins, as data: what the person did (a command, a form, a button, a message) and what it
 * carries. The pipeline reads an origin twice, in one place each: where the turn posts (place.ts) and
 * what the person hears back when it ends (reply.ts). A new way to ask is a new case here and in those two.
 */

/** The person's message that starts the turn, and what to log it by. */
export interface TurnRequest extends TurnMessage {
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
}

/** Where a scheduled run posted: its thread, or why it could not open one. */
export type ScheduledPlace = { threadId: string } | { unable: string };

export type TurnOrigin =
  /** `/ask`: in a channel a new thread on its reply, in a thread that thread, in a DM the interaction. */
  | { kind: 'ask'; interaction: ChatInputCommandInteraction; request: TurnRequest }
  /** Ask about this message: a new thread on that message (or the thread it is in), privately acknowledged. */
  | { kind: 'ask-about'; interaction: ModalSubmitInteraction; about: AskedAbout; request: TurnRequest }
  /** Continue past the step limit: the same thread, from its memory. */
  | {
      kind: 'continue';
      interaction: ButtonInteraction;
      thread: ThreadChannel;
      request: TurnRequest;
      /** Give the button's one-time claim back (the turn was refused: the button is offered again). */
      unclaim(): void;
    }
  /**
   * A message that mentions the bot (or, where it answers always, any new message) in a text or
   * announcement channel: the bot opens a thread on that message and answers there.
   */
  | {
      kind: 'mention';
      message: Message<true>;
      request: TurnRequest;
      /** Say something under the message (why it was not taken); quiet where the bot answers always. */
      tell(text: string): Promise<void>;
    }
  /**
   * A scheduled question's run, as its owner: a new thread per run on a message that starts it in the
   * schedule's channel (named with the date), or the schedule's one thread for all runs.
   */
  | {
      kind: 'schedule';
      request: TurnRequest;
      channel: TextChannel | NewsChannel;
      /** The schedule's own thread, when it has one for all runs still open. */
      thread?: ThreadChannel;
      /** The message that starts the run, and the new thread's name. */
      headline: string;
      threadName: string;
      /** The first line of the run's thread (runs skipped while the bot was down). */
      note?: string;
      /** Told where the run posts once its thread is open (a one-thread schedule keeps it), or why it cannot. */
      placed(where: ScheduledPlace): Promise<void>;
      /**
       * Asked just before the run's first model call (a run by hand has none): false when the run must
       * not be made, because another process took its occurrence over (scheduler.ts).
       */
      begin?(): Promise<boolean>;
    }
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
