/**
 * /ask question — in a channel: open a thread named after the question and answer there, step by step.
 * Inside a thread: continue that thread's conversation. The turn pipeline does the rest (where it
 * posts, the limits, the run, what the asker hears); this only refuses at once what needs no storage
 * and acknowledges within Discord's 3 seconds.
 */
import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf, scopeOf, NO_MENTIONS } from '../src/discord/members.js';
import { commandPlaceProblem } from '../src/discord/posting/permissions.js';

export const ask: Command = {
  data: new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask a question: I reason step by step, using tools, in a thread.')
    // Offered in DMs too; they are answered only with ALLOW_DMS, and the refusal says so.
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addStringOption((o) => o.setName('question').setDescription('What do you want to know?').setRequired(true).setMaxLength(4000))
    .addAttachmentOption((o) => o.setName('file').setDescription('A text file or an image to ask about (optional)')),

  async execute(interaction, { turns, runtime: { logger } }) {
    const file = interaction.options.getAttachment('file');
    const channel = interaction.channel;
    const threadId = channel?.isThread() ? channel.id : undefined;
    const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id, threadId };
    const scope = scopeOf(interaction, interaction.member);
    // What needs no storage is refused at once, privately: an empty or long question, a DM, a thread where the bot cannot post.
    const input = turns.checkInput(scope, interaction.options.getString('question', true));
    const problem = input.ok ? (threadId && interaction.guildId ? commandPlaceProblem('thread', interaction.appPermissions) : undefined) : input.message;
    if (problem || !input.ok) {
      if (threadId) logger.warn({ ...logFields, problem }, '/ask refused before any model call');
      await interaction.reply({ content: problem ?? '', flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      return;
    }
    // Acknowledge before anything touches storage (limits, the journal): Discord allows 3 seconds, and a
    // busy database must never make the command look dead.
    await interaction.deferReply();
    await turns.start({
      kind: 'ask',
      interaction,
      request: {
        scope,
        author: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) },
        text: input.text,
        logFields,
        attachments: file ? [{ name: file.name, url: file.url, contentType: file.contentType, size: file.size }] : undefined,
      },
    });
  },
};
