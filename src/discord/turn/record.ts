/**
 * The turn record: one turn, made once when its time comes (origin.ts says how it began) and passed
 * whole to the end. Who asks and whom the turn answers, where it posts, the messages, the place's
 * settings read once: plain data, so the run journal and a turn resumed after an approval (in another
 * process, after a restart) read the same thing, checked whole when read back (`TurnRecordSchema`).
 * What is live beside it (the usage claim, the channel objects) is held by the pipeline.
 *
 * A question's text enters a turn only through `checkInput`, the one maker of `CheckedText`: it must say
 * something and fit QUESTION_MAX_CHARS (checked here, whatever the Discord client allowed), and a DM is
 * answered only with ALLOW_DMS. These checks need no storage, so an origin makes them before it
 * acknowledges and refuses privately at once.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { cleanText, isBlankQuestion } from '../../agent/clean-text.js';
import type { Logger } from '../../logger.js';
import { SkillRunSchema, type SkillRun } from '../../skills/skill-run.js';
import type { DisplayLevel, RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import type { AttachmentRef } from '../files/attachments.js';
import type { MessageRef, PlaceRef, TurnTarget } from '../posting/target.js';
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

/** How a turn began: its origin's kind, kept when it resumes after an approval (what its person hears back depends on it). */
export type TurnKind = 'ask' | 'ask-about' | 'continue' | 'follow-up' | 'mention' | 'schedule' | 'skill';

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
  /** The skill the turn runs (a skill's run, a follow-up in its thread): its instructions and tools. */
  skill?: SkillRun;
}

/** Where a turn that has its place posts, as the record keeps it (and the live target beside it). */
export interface Placement {
  target: TurnTarget;
  place: PlaceRef;
  reply?: MessageRef;
}

/** What a turn answers before its record is made: how it began, the messages, who pays; a resumed turn's settings too. */
export type NewTurn = Pick<TurnRecord, 'kind' | 'messages' | 'payer' | 'logFields' | 'skill'> & { settings?: TurnSettings };

/**
 * The record of a turn whose time has come (its thread's queue reached it): checked when it runs, not
 * when it was queued (a thread can be locked or lose a permission meanwhile), with the place's settings
 * read now (`here`: the rules the turn was admitted under), unless it keeps the ones it began with (a
 * resumed turn). Or the outcome when the bot cannot answer there: no model call is made.
 */
export async function makeRecord(
  ctx: { rules: Pick<Rules, 'at'>; logger: Pick<Logger, 'warn'> },
  turn: NewTurn,
  placed: Placement,
  here: PlaceRules = ctx.rules.at(turn.messages[0]!.scope),
): Promise<{ ok: true; record: TurnRecord } | { ok: false; outcome: TurnOutcome }> {
  const problem = placed.target.preflight?.();
  if (problem) {
    ctx.logger.warn({ ...turn.logFields, problem }, 'no run: the bot cannot answer there (no model call made)');
    return { ok: false, outcome: { kind: 'unable', message: problem } };
  }
  const settings = turn.settings ?? (await here.settings());
  const record: TurnRecord = {
    id: randomUUID().slice(0, 8),
    kind: turn.kind,
    messages: turn.messages,
    payer: turn.payer,
    place: placed.place,
    ...(placed.reply ? { reply: placed.reply } : {}),
    logFields: turn.logFields,
    settings: { display: settings.display, maxSteps: settings.maxSteps, model: settings.model, ...(settings.persona ? { persona: settings.persona } : {}) },
    ...(turn.skill ? { skill: turn.skill } : {}),
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

/** A message kept by its ids. */
export const MessageRefSchema = z.object({ channelId: z.string(), messageId: z.string() });

/** A turn record as saved (a turn waiting for approval keeps it), field for field: read back, it is checked whole. */
export const TurnRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(['ask', 'ask-about', 'continue', 'follow-up', 'mention', 'schedule', 'skill']),
  messages: z.array(z.object({
    author: z.object({ id: z.string(), name: z.string() }),
    scope: z.object({ guildId: z.string().nullable(), channelId: z.string(), categoryId: z.string().nullable(), userId: z.string(), roleIds: z.array(z.string()).readonly() }),
    // Checked when it was first admitted (`checkInput`), and kept by this bot since.
    text: z.string().transform((text) => text as CheckedText),
    attachments: z.array(z.object({ name: z.string(), url: z.string(), contentType: z.string().nullable(), size: z.number() })).readonly().optional(),
    context: z.string().optional(),
    messageId: z.string().optional(),
    notices: z.array(z.string()).readonly().optional(),
  })).min(1),
  payer: z.string(),
  place: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('thread'), threadId: z.string() }),
    z.object({ kind: z.literal('interaction'), applicationId: z.string(), token: z.string(), channelId: z.string(), expiresAt: z.number() }),
  ]),
  reply: MessageRefSchema.optional(),
  logFields: z.record(z.string(), z.string().optional()),
  settings: z.object({ display: z.enum(['full', 'actions', 'answer']), maxSteps: z.number().int().positive(), model: z.string(), persona: z.string().optional() }),
  skill: SkillRunSchema.optional(),
});

// The schema and the type must not drift apart: each must be assignable to the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameShape: Same<z.output<typeof TurnRecordSchema>, TurnRecord> = true;
void _sameShape;
