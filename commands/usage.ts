/**
 * /usage — what you have used today and what is left of your limits; a moderator (Manage Server) also
 * sees the server's totals and its top members and channels. Private (ephemeral) replies.
 */
import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { scopeOf, NO_MENTIONS } from '../src/discord/members.js';
import { fitMessage } from '../src/discord/posting/split-message.js';
import { describeError } from '../src/errors.js';
import { guildUsageText, memberUsageText } from '../src/discord/text/usage-text.js';

export const usage: Command = {
  data: new SlashCommandBuilder()
    .setName('usage')
    .setDescription('What you have used today, and what is left (moderators also see the server).')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM),

  async execute(interaction, { usage: { limiter }, rules, runtime: { logger } }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const guildId = interaction.guildId;
    let content: string;
    try {
      // The limits the member's next question would be admitted under (the defaults in DMs).
      const limits = await rules.at(scopeOf(interaction, interaction.member)).limits();
      const parts = [memberUsageText(await limiter.memberUsage({ guildId, userId: interaction.user.id }, limits))];
      if (guildId && interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) {
        // An exempt moderator's own limits are none, but the server's daily cap is in them all the same.
        parts.push(guildUsageText(await limiter.guildUsage(guildId, limits.guildDailyTokens)));
      }
      content = parts.join('\n\n');
    } catch (error) {
      logger.error({ err: error, interactionId: interaction.id, guildId }, '/usage failed');
      content = `❌ I could not read the usage figures (${describeError(error)}). Try again in a moment.`;
    }
    await interaction.editReply({ content: fitMessage(content), allowedMentions: NO_MENTIONS });
  },
};
