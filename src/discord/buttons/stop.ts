/**
 * The Stop button under a running log: its custom id, its builder and its handler. The person who
 * started the run, anyone whose message it answers, or anyone who can manage messages in the channel
 * may stop it; others get a private note saying so.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, PermissionFlagsBits } from 'discord.js';
import type { Logger } from '../../logger.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import type { RunRegistry } from '../runs/run-registry.js';

/** The start of a Stop button's custom id; the run's id follows (run recovery rebuilds a disabled one). */
export const STOP_PREFIX = 'stop:';

export const stopButton = {
  kind: 'button',
  prefix: STOP_PREFIX,

  /** The action row with the Stop button for run `runId`. */
  build(runId: string) {
    return [new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${STOP_PREFIX}${runId}`).setLabel('Stop').setStyle(ButtonStyle.Danger),
    )];
  },

  async handle(interaction, { turns: { runs }, runtime: { logger } }) {
    const runId = customIdRest(stopButton, interaction.customId);
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
  },
} satisfies ButtonEntry<{ turns: { runs: RunRegistry }; runtime: { logger: Logger } }>;
