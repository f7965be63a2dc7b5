/**
 * The Stop button under a run's log: the person who started the run, anyone whose message it answers,
 * or anyone who can manage messages in the channel may stop it; others get a private note saying so.
 * It stops a run going on now, or a turn that waits for an approval (its log keeps the button).
 */
import { MessageFlags, PermissionFlagsBits, type ButtonInteraction } from 'discord.js';
import type { Logger } from '../../logger.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { STOP_PREFIX, stopRow } from '../posting/run-components.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { Turns } from '../turn/pipeline.js';

export { STOP_PREFIX } from '../posting/run-components.js';

const WHO_MAY = 'Only the person who asked, or a moderator, can stop this run.';

const moderator = (interaction: ButtonInteraction) => interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false;

export const stopButton = {
  kind: 'button',
  prefix: STOP_PREFIX,
  build: (runId: string) => [stopRow(runId)],

  async handle(interaction, { turns, runtime: { logger } }) {
    const runId = customIdRest(stopButton, interaction.customId);
    const run = turns.runs.get(runId);
    if (!run) return stopWaiting(interaction, runId, turns, logger);
    const asker = interaction.user.id === run.starterId || (run.askers?.includes(interaction.user.id) ?? false);
    if (!asker && !moderator(interaction)) {
      await interaction.reply({ content: WHO_MAY, flags: MessageFlags.Ephemeral });
      return;
    }
    // Acknowledge without a new message: the log loses its button when the run ends, and the thread says it stopped.
    await interaction.deferUpdate();
    turns.runs.stop(runId, 'user');
    logger.info({ runId, threadId: run.threadId, by: interaction.user.id }, 'run stopped from Discord');
  },
} satisfies ButtonEntry<{ turns: Pick<Turns, 'whoMayDecide' | 'stopWaiting'> & { runs: RunRegistry }; runtime: { logger: Logger } }>;

/** No run goes on under this id: it may be a turn waiting for an approval, kept in storage. */
async function stopWaiting(interaction: ButtonInteraction, id: string, turns: Pick<Turns, 'whoMayDecide' | 'stopWaiting'>, logger: Logger): Promise<void> {
  // Acknowledged before storage is read (privately: only a refusal has something to say).
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const who = await turns.whoMayDecide(interaction.client, id, undefined, interaction.message.id);
  if (!who) return void (await interaction.editReply({ content: 'That run has already finished.' }));
  // Its saved record could not be read back: the press ended it, and its thread says so.
  if ('ended' in who) return void (await interaction.editReply({ content: who.ended }));
  if (!who.askers.includes(interaction.user.id) && !moderator(interaction)) return void (await interaction.editReply({ content: WHO_MAY }));
  const stopped = await turns.stopWaiting(interaction.client, id);
  await interaction.editReply({ content: stopped ? 'Stopped.' : 'That run has already finished.' });
  if (stopped) logger.info({ runId: id, by: interaction.user.id }, 'a run waiting for approval was stopped from Discord');
}
