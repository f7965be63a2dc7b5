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

/** The row with the Stop button for run `runId`. */
export function stopRow(runId: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${STOP_PREFIX}${runId}`).setLabel('Stop').setStyle(ButtonStyle.Danger),
  );
}

/** The row with the Continue button under a step-limited answer; only `starterId` may press it. */
export function continueRow(starterId: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${CONTINUE_PREFIX}${starterId}`).setLabel('Continue').setStyle(ButtonStyle.Primary),
  );
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
