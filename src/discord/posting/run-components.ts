/**
 * What the buttons under a run look like: their custom ids and rows. What pressing one does is in
 * `src/discord/buttons/` (each module there takes its prefix and builder from here); the turn's thread
 * view and the run journal's recovery build them from here, so neither reaches up to the handlers.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';

/** The start of a Stop button's custom id; the run's id follows (run recovery rebuilds a disabled one). */
export const STOP_PREFIX = 'stop:';
export const CONTINUE_PREFIX = 'continue:';
export const APPROVAL_PREFIX = 'approve:';
export const FORGET_PREFIX = 'memory-forget:';
/** 👍 and 👎 under a final answer: `rate:<turn id>:up|down` (the guild is the interaction's; the record is in the shared storage). */
export const VOTE_PREFIX = 'rate:';
/** The form a 👎 opens for its optional reason: `rate-why:<turn id>`. */
export const VOTE_REASON_PREFIX = 'rate-why:';

/** The row with the Stop button for run `runId`. */
export function stopRow(runId: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${STOP_PREFIX}${runId}`).setLabel('Stop').setStyle(ButtonStyle.Danger),
  );
}

/** The row with the Continue button under a step-limited answer; only `starterId` may press it. */
export function continueRow(starterId: string): ActionRowBuilder<ButtonBuilder> {
  return answerRow({ continueFor: starterId });
}

/** The buttons under a final answer: Continue (a step-limited answer, for `continueFor`), then 👍 and 👎 on turn `votesFor`. */
export interface AnswerButtons {
  continueFor?: string;
  votesFor?: string;
}

/** One row (three buttons at most, of Discord's five): Continue when shown, 👍 and 👎 beside it. */
export function answerRow({ continueFor, votesFor }: AnswerButtons): ActionRowBuilder<ButtonBuilder> {
  const row = new ActionRowBuilder<ButtonBuilder>();
  if (continueFor) row.addComponents(new ButtonBuilder().setCustomId(`${CONTINUE_PREFIX}${continueFor}`).setLabel('Continue').setStyle(ButtonStyle.Primary));
  if (votesFor) {
    row.addComponents(
      new ButtonBuilder().setCustomId(`${VOTE_PREFIX}${votesFor}:up`).setEmoji('👍').setStyle(ButtonStyle.Secondary),
      new ButtonBuilder().setCustomId(`${VOTE_PREFIX}${votesFor}:down`).setEmoji('👎').setStyle(ButtonStyle.Secondary),
    );
  }
  return row;
}

/** The 👍 and 👎 row for turn `turnId` alone. */
export function voteRow(turnId: string): ActionRowBuilder<ButtonBuilder> {
  return answerRow({ votesFor: turnId });
}

/** The Approve and Deny buttons for the call waiting under `key` (`turnId:callIndex`). */
export function approvalRow(key: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${APPROVAL_PREFIX}${key}:yes`).setLabel('Approve').setStyle(ButtonStyle.Success),
    new ButtonBuilder().setCustomId(`${APPROVAL_PREFIX}${key}:no`).setLabel('Deny').setStyle(ButtonStyle.Secondary),
  );
}

/** The Forget button under a "Remembered for …" line: `ownerId`'s note `entryId`, theirs alone to forget. */
export function forgetRow(ownerId: string, entryId: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${FORGET_PREFIX}${ownerId}:${entryId}`).setLabel('Forget').setStyle(ButtonStyle.Secondary),
  );
}

/** The turn a message's vote buttons are for (kept when Continue comes and goes), or undefined. */
export function votesOn(message: { components: readonly object[] }): string | undefined {
  for (const row of message.components) {
    const inner = (row as { components?: unknown }).components;
    for (const component of Array.isArray(inner) ? inner : []) {
      const id = (component as { customId?: unknown }).customId;
      if (typeof id === 'string' && id.startsWith(VOTE_PREFIX)) return id.slice(VOTE_PREFIX.length).split(':')[0];
    }
  }
  return undefined;
}
