/**
 * Continue past the step limit. A run that stopped at its step limit answers from what it had, and
 * its answer carries a Continue button: the person who asked may press it to go on from the thread's
 * memory with a fresh step budget. It goes through the turn starter like any message, so usage limits
 * count it.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction } from 'discord.js';
import { displayNameOf, scopeOf } from './interaction-info.js';
import { NO_MENTIONS, threadTarget } from './turn-target.js';
import { privateNotice } from './turn-outcome.js';
import type { Turns } from './turns.js';

export const CONTINUE_PREFIX = 'continue:';

/** What the continuing turn says, as the starter's message (stored, so the thread's memory shows it). */
export const CONTINUE_TEXT = 'Continue: you stopped at the step limit. Carry on from what you have found so far, with a fresh set of steps.';

/** The button under a step-limited answer; only `starterId` may press it. */
export function continueButton(starterId: string) {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`${CONTINUE_PREFIX}${starterId}`).setLabel('Continue').setStyle(ButtonStyle.Primary),
  );
}

export async function handleContinueButton(interaction: ButtonInteraction, turns: Turns): Promise<void> {
  const starterId = interaction.customId.slice(CONTINUE_PREFIX.length);
  const thread = interaction.channel;
  if (interaction.user.id !== starterId) {
    await interaction.reply({ content: 'Only the person who asked can let this run continue. You can ask your own question with `/ask`.', flags: MessageFlags.Ephemeral });
    return;
  }
  if (!thread?.isThread()) {
    await interaction.reply({ content: 'This run can only continue in its thread.', flags: MessageFlags.Ephemeral });
    return;
  }
  // One run per button, however many clicks arrive before it is gone (a double click, two devices).
  if (!turns.claimOnce(`continue:${interaction.message.id}`)) {
    await interaction.deferUpdate().catch(() => undefined);
    return;
  }
  // Acknowledge at once and take the button away.
  await interaction.deferUpdate();
  await interaction.editReply({ components: [] });
  const outcome = await turns.start({
    request: {
      scope: scopeOf(interaction, interaction.member),
      author: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) },
      text: CONTINUE_TEXT,
      logFields: { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, threadId: thread.id, userId: interaction.user.id },
    },
    place: async () => ({ target: threadTarget(thread) }),
  });
  if (outcome.kind === 'refused') {
    // Refused (a usage limit): the button comes back, so it can be pressed again later.
    turns.releaseClaim(`continue:${interaction.message.id}`);
    await interaction.editReply({ components: [continueButton(starterId)] }).catch(() => undefined);
  }
  const notice = privateNotice(outcome);
  if (notice) await interaction.followUp({ content: notice, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
}
