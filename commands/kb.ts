/**
 * /kb — the server's knowledge base: documents `search_knowledge` searches and cites. `add`, `list` and
 * `remove` need Manage Server (checked when they run: the command itself stays visible to everyone so
 * that `search` is) and are audited and posted to the log channel; `search` is for anyone, ephemeral.
 * The "Add to knowledge base" message menu is in `kb-message.ts`.
 */
import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { describeError } from '../src/errors.js';
import { KnowledgeInputError } from '../src/knowledge/index.js';
import { OptionProblem } from './command-options.js';
import { addFromOptions, documentChoices, KNOWLEDGE_OFF, listDocuments, removeDocument, searchDocuments } from './kb-subcommands.js';
import { allowModerator } from './moderation.js';

const HINTS: Record<string, string> = {
  add: 'ask a moderator to add the document',
  list: '`/kb search` shows what the documents say',
  remove: 'ask a moderator to remove the document',
};

export const kb: Command = {
  data: new SlashCommandBuilder()
    .setName('kb')
    .setDescription("This server's knowledge base: documents I search and cite.")
    .setContexts(InteractionContextType.Guild)
    .addSubcommand((s) =>
      s.setName('add').setDescription('Add or replace a document: a file or a web page (moderators)')
        .addAttachmentOption((o) => o.setName('file').setDescription('A Markdown, text, HTML, PDF or Word (.docx) file'))
        .addStringOption((o) => o.setName('url').setDescription('A public web page (http or https)').setMaxLength(2000))
        .addStringOption((o) => o.setName('link').setDescription('For a file: the page to cite as its source').setMaxLength(2000)))
    .addSubcommand((s) => s.setName('list').setDescription('The documents, their size, and the space left (moderators)'))
    .addSubcommand((s) =>
      s.setName('remove').setDescription('Remove a document (moderators)')
        .addStringOption((o) => o.setName('document').setDescription('Which document (title, id or source)').setRequired(true).setAutocomplete(true).setMaxLength(2000)))
    .addSubcommand((s) =>
      s.setName('search').setDescription("Search this server's documents, as I do when answering")
        .addStringOption((o) => o.setName('query').setDescription('Words to look for').setRequired(true).setMaxLength(500))
        .addIntegerOption((o) => o.setName('limit').setDescription('How many passages (1-10, default 5)').setMinValue(1).setMaxValue(10))),

  async execute(interaction, ctx) {
    const sub = interaction.options.getSubcommand();
    if (sub !== 'search' && !(await allowModerator(interaction, `kb ${sub}`, { hint: HINTS[sub] }))) return;
    if (!interaction.inGuild()) {
      return void (await interaction.reply({ content: '`/kb` works inside a server: documents belong to one.', flags: MessageFlags.Ephemeral }));
    }
    const knowledge = ctx.knowledge;
    if (!knowledge) return void (await interaction.reply({ content: KNOWLEDGE_OFF, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    try {
      switch (sub) {
        case 'add': return await addFromOptions(interaction, ctx, knowledge);
        case 'list': return await listDocuments(interaction, ctx, knowledge);
        case 'remove': return await removeDocument(interaction, ctx, knowledge);
        case 'search': return await searchDocuments(interaction, knowledge);
        default: throw new OptionProblem('I do not know that subcommand; it may be from an older version.');
      }
    } catch (error) {
      const refused = error instanceof OptionProblem || error instanceof KnowledgeInputError;
      if (!refused) ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, sub }, '/kb failed');
      const content = error instanceof OptionProblem
        ? error.message
        : error instanceof KnowledgeInputError
          ? `❌ ${error.message} Nothing was ${sub === 'add' ? 'added' : 'changed'}.`
          : `❌ That did not work (${describeError(error)}). Nothing was changed; try again in a moment.`;
      await interaction.editReply({ content, allowedMentions: NO_MENTIONS });
    }
  },

  async autocomplete(interaction, ctx) {
    // Titles are shown to moderators only, like `/kb list`; others get no suggestions.
    const moderator = interaction.inGuild() && interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild);
    if (!moderator || !ctx.knowledge || interaction.options.getFocused(true).name !== 'document') return void (await interaction.respond([]));
    try {
      await interaction.respond(await documentChoices(ctx.knowledge, interaction.guildId!, interaction.options.getFocused()));
    } catch (error) {
      ctx.runtime.logger.warn({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/kb remove suggestions failed');
      await interaction.respond([]).catch(() => undefined);
    }
  },
};
