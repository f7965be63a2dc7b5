/**
 * The Stop button under a running log. The person who started the run, or anyone who can manage
 * messages in the channel, may stop it; others get a private note saying so.
 */
import { MessageFlags, PermissionFlagsBits, type ButtonInteraction } from 'discord.js';
import type { BotServices } from './services.js';
import { STOP_PREFIX } from './thread-turn.js';

export async function handleStopButton(interaction: ButtonInteraction, { runs, logger }: Pick<BotServices, 'runs' | 'logger'>): Promise<void> {
  const runId = interaction.customId.slice(STOP_PREFIX.length);
  const run = runs.get(runId);
  if (!run) {
    await interaction.reply({ content: 'That run has already finished.', flags: MessageFlags.Ephemeral });
    return;
  }
  const moderator = interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false;
  const asker = interaction.user.id === run.starterId || (run.askers?.includes(interaction.user.id) ?? false);
  if (!asker && !moderator) {
    await interaction.reply({ content: 'Only the person who asked, or a moderator, can stop this run.', flags: MessageFlags.Ephemeral });
    return;
  }
  // Acknowledge without a new message: the log loses its button when the run ends, and the thread says it stopped.
  await interaction.deferUpdate();
  runs.stop(runId, 'user');
  logger.info({ runId, threadId: run.threadId, by: interaction.user.id }, 'run stopped from Discord');
}
