/**
 * /export — in a bot thread: its conversation with its steps (who asked what and when, thoughts, tool
 * calls, results, answers, tokens), attached as Markdown and as JSON, for the member who asked only.
 * Only a member who can view the thread and read its history (or a moderator) gets it, and only what the
 * channel's display level shows there; a moderator may ask for the full record. Every export is audited.
 * Where the bot may not attach files it says so and shows the most recent part that fits a message.
 */
import { AttachmentBuilder, InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { atDisplayLevel, buildExport, exchangeMarkdown, exportJson, exportMarkdown, type ConversationExport } from '../src/discord/text/conversation-export.js';
import { scopeOf, displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import { canReadHistory } from '../src/discord/posting/permissions.js';
import { closeOpenFence, fitMessage, MESSAGE_LIMIT } from '../src/discord/posting/split-message.js';
import { describeError } from '../src/errors.js';

export const exportCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('export')
    .setDescription('Export this thread\'s conversation and steps as Markdown and JSON (only you see it).')
    .addBooleanOption((o) => o.setName('full').setDescription('Moderators: every step, whatever this channel\'s display level hides'))
    .setContexts(InteractionContextType.Guild),

  async execute(interaction, { turns: { conversations }, rules, runtime: { logger, now } }) {
    const channel = interaction.channel;
    const private_ = { flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS } as const;
    if (!channel?.isThread() || channel.ownerId !== interaction.client.user.id) {
      await interaction.reply({ content: 'Use /export inside a thread I started (one made by /ask).', ...private_ });
      return;
    }
    const can = interaction.memberPermissions;
    const moderator = !!(can?.has(PermissionFlagsBits.ManageThreads) || can?.has(PermissionFlagsBits.ManageGuild));
    if (!moderator && !canReadHistory(can)) {
      // The export is the thread's history: whoever may not scroll back through it may not have it as a file.
      await interaction.reply({ content: 'You cannot export this thread: it needs View Channel and Read Message History here (or a moderator\'s rights). Nothing was exported.', ...private_ });
      return;
    }
    const full = interaction.options.getBoolean('full') ?? false;
    if (full && !moderator) {
      await interaction.reply({ content: 'Only moderators (Manage Threads or Manage Server) can export the full record. Run /export without `full` for what this channel shows.', ...private_ });
      return;
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    let conversation;
    try {
      conversation = await conversations.load(channel.id);
    } catch (error) {
      logger.error({ err: error, threadId: channel.id }, 'could not load a conversation for /export');
      await interaction.editReply({ content: `I could not read this thread's memory (${describeError(error)}). Try again in a moment.`, allowedMentions: NO_MENTIONS });
      return;
    }
    if (conversation.messages.length === 0) {
      await interaction.editReply({ content: 'This thread has no saved conversation to export (it may have been reset with /reset).', allowedMentions: NO_MENTIONS });
      return;
    }
    const level = full ? 'full' : (await rules.at(scopeOf(interaction, interaction.member)).settings()).display;
    const data = atDisplayLevel(buildExport(conversation, {
      threadName: channel.name,
      guildId: interaction.guildId ?? undefined,
      exportedBy: displayNameOf(interaction.member, interaction.user),
      botName: interaction.client.user.username,
      now: now(),
    }), level);
    // Who took a copy of which thread, and how much of it: in `/tools audit`, like every moderation
    // action (kept out of the log channel, which hears of changes).
    if (interaction.guildId) {
      const detail = `exported the conversation of <#${channel.id}> (${full ? 'the full record' : `what the display level \`${level}\` shows`})`;
      const actor = { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) };
      await rules.recordAction(interaction.guildId, actor, { action: 'export', detail }, { logChannel: false })
        .catch((error) => logger.warn({ err: error, threadId: channel.id }, 'could not audit an export'));
    }
    const summary = `The conversation of this thread: ${data.exchanges.length} exchange${data.exchanges.length === 1 ? '' : 's'}, ${data.usage.totalTokens.toLocaleString('en-US')} tokens.`;
    const markdown = exportMarkdown(data);
    const json = exportJson(data);
    const limit = interaction.attachmentSizeLimit;
    const canAttach = interaction.appPermissions.has(PermissionFlagsBits.AttachFiles);
    if (canAttach && Buffer.byteLength(markdown) <= limit && Buffer.byteLength(json) <= limit) {
      const name = `threadwise-${channel.id}`;
      await interaction.editReply({
        content: summary,
        files: [
          new AttachmentBuilder(Buffer.from(markdown, 'utf8'), { name: `${name}.md`, description: 'The conversation, readable' }),
          new AttachmentBuilder(Buffer.from(json, 'utf8'), { name: `${name}.json`, description: 'The conversation, as data' }),
        ],
        allowedMentions: NO_MENTIONS,
      });
      return;
    }
    const why = canAttach
      ? 'The export is larger than the files I may send here'
      : 'I may not attach files here (I am missing the Attach Files permission; a moderator can grant it)';
    await interaction.editReply({ content: inlineExport(data, `${why}, so here is the most recent part that fits in a message:`), allowedMentions: NO_MENTIONS });
  },
};

/** As many of the most recent exchanges as fit in one message under `intro`; at least the start of the last one. */
export function inlineExport(data: ConversationExport, intro: string): string {
  const room = MESSAGE_LIMIT - intro.length - 2;
  const sections: string[] = [];
  let used = 0;
  for (let i = data.exchanges.length - 1; i >= 0; i--) {
    const section = exchangeMarkdown(data.exchanges[i]!, i + 1);
    if (used + section.length + 2 > room) {
      if (sections.length === 0) sections.push(closeOpenFence(fitMessage(section, room - 5)));
      break;
    }
    sections.unshift(section);
    used += section.length + 2;
  }
  return `${intro}\n\n${sections.join('\n\n')}`;
}
