/**
 * "Add to knowledge base" in a message's menu (Apps →): the message's text becomes a document of this
 * server's knowledge base, cited by the message's link. Manage Server, registered as the default member
 * permission and checked again when it runs; audited and posted to the log channel like `/kb add`.
 * Adding the same message again replaces it (its link is its source), so an edited FAQ message is
 * re-added in place.
 */
import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  type Guild,
} from 'discord.js';
import type { MessageCommand } from '../src/discord/command.js';
import { isRestrictedChannel } from '../src/discord/posting/permissions.js';
import { displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import { describeError } from '../src/errors.js';
import { documentFromDiscordMessage, KnowledgeInputError } from '../src/knowledge/index.js';
import { addDocument, KNOWLEDGE_OFF } from './kb-subcommands.js';
import { allowModerator } from './moderation.js';

/** The menu entry's name, as Discord shows it. */
export const ADD_TO_KNOWLEDGE_BASE = 'Add to knowledge base';

export const addToKnowledgeBase: MessageCommand = {
  data: new ContextMenuCommandBuilder()
    .setName(ADD_TO_KNOWLEDGE_BASE)
    .setType(ApplicationCommandType.Message)
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild),

  async execute(interaction, ctx) {
    const label = `**${ADD_TO_KNOWLEDGE_BASE}**`;
    if (!(await allowModerator(interaction, 'kb', { label, hint: 'ask a moderator to add the message' })) || !interaction.inGuild()) return;
    if (!ctx.knowledge) return void (await interaction.reply({ content: KNOWLEDGE_OFF, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const message = interaction.targetMessage;
    try {
      const doc = documentFromDiscordMessage({
        guildId: interaction.guildId,
        channelId: message.channelId,
        messageId: message.id,
        content: message.content,
        authorName: displayNameOf(message.member, message.author),
      });
      await addDocument(interaction, ctx, ctx.knowledge, doc, await restrictedNotice(interaction.guild, message.channelId));
    } catch (error) {
      if (!(error instanceof KnowledgeInputError)) ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, `${ADD_TO_KNOWLEDGE_BASE} failed`);
      const content = error instanceof KnowledgeInputError
        ? `❌ ${error.message} Nothing was added.`
        : `❌ That did not work (${describeError(error)}). Nothing was added; try again in a moment.`;
      await interaction.editReply({ content, allowedMentions: NO_MENTIONS });
    }
  },
};

/** For a message from a channel @everyone cannot view: who will find it, so the moderator is not surprised. */
async function restrictedNotice(guild: Guild | null, channelId: string): Promise<string> {
  if (guild && !(await isRestrictedChannel(guild, channelId))) return '';
  const name = guild?.channels.cache.get(channelId)?.name;
  return `-# 🔒 This message is from ${name ? `#${name}` : 'a channel'} that not everyone can see: \`/kb search\` and \`search_knowledge\` will show it only to members who can see that channel.`;
}
