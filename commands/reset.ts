/**
 * /reset — forget this thread's conversation, after a confirmation button. The thread then says who
 * cleared it, so nobody is surprised that the bot forgot.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf } from '../src/discord/interaction-info.js';
import { NO_MENTIONS } from '../src/discord/turn-target.js';
import { describeError } from '../src/errors.js';

const PREFIX = 'reset:';

export const reset: Command = {
  data: new SlashCommandBuilder()
    .setName('reset')
    .setDescription("Forget this thread's conversation (asks for confirmation).")
    .setContexts(InteractionContextType.Guild),

  async execute(interaction) {
    if (!interaction.channel?.isThread()) {
      await interaction.reply({ content: '/reset works inside a thread: it makes me forget that thread\'s conversation.', flags: MessageFlags.Ephemeral });
      return;
    }
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${PREFIX}confirm:${interaction.channel.id}`).setLabel('Forget this thread').setStyle(ButtonStyle.Danger),
      new ButtonBuilder().setCustomId(`${PREFIX}cancel`).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
    );
    await interaction.reply({
      content: 'Forget everything said in this thread so far? I will answer the next message as if the thread were new.',
      components: [row],
      flags: MessageFlags.Ephemeral,
    });
  },

  buttons: {
    prefix: PREFIX,
    async handle(interaction, { queue, conversations }) {
      const [, action, threadId] = interaction.customId.split(':');
      if (action !== 'confirm' || !threadId) {
        await interaction.update({ content: 'Cancelled: nothing was forgotten.', components: [] });
        return;
      }
      try {
        // Through the thread's queue, so a run in progress finishes (and saves) before the reset.
        await queue.run(threadId, () => conversations.reset(threadId), { maxWaitMs: 10_000 });
      } catch (error) {
        await interaction.update({ content: `I could not forget this thread: ${describeError(error)}. Nothing was changed.`, components: [] });
        return;
      }
      await interaction.update({ content: 'Done: this thread\'s memory is cleared.', components: [] });
      const name = displayNameOf(interaction.member, interaction.user);
      if (interaction.channel?.isSendable()) {
        await interaction.channel.send({ content: `🧹 **${name}** cleared my memory of this thread. I start fresh from here.`, allowedMentions: NO_MENTIONS }).catch(() => undefined);
      }
    },
  },
};
