/**
 * /tools — moderators decide which tools the bot may use: per server, channel, category or role.
 * Registered with Manage Server as the default member permission and checked again when it runs,
 * because server admins can make any command visible to anyone. Every change is audited.
 */
import {
  ChannelType,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { describeError } from '../src/errors.js';
import { enabledByDefault } from '../src/policy/index.js';
import { AUDIT_SHOW_MAX } from '../src/discord/text/audit-text.js';
import { OptionProblem, RULE_CHANNEL_TYPES } from './command-options.js';
import { allowModerator } from './moderation.js';
import { changeApproval, changeTool, listTools, resetTools, setLogChannel, showAudit } from './tools-subcommands.js';
import { showTool } from './tools-show.js';

function withTool(s: SlashCommandSubcommandBuilder, required: boolean): SlashCommandSubcommandBuilder {
  return s.addStringOption((o) => o.setName('tool').setDescription(required ? 'Which tool' : 'Which tool (leave out for every tool)').setRequired(required).setAutocomplete(true));
}

function withTarget(s: SlashCommandSubcommandBuilder, what: string): SlashCommandSubcommandBuilder {
  return s
    .addChannelOption((o) => o.setName('channel').setDescription('Only in this channel or category (default: the whole server)').addChannelTypes(...RULE_CHANNEL_TYPES))
    .addRoleOption((o) => o.setName('role').setDescription(`Only for runs started by members with this role${what}`));
}

export const tools: Command = {
  data: new SlashCommandBuilder()
    .setName('tools')
    .setDescription('Choose which tools I may use here (moderators).')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((s) =>
      s.setName('list').setDescription('What is enabled here, and why')
        .addChannelOption((o) => o.setName('channel').setDescription('Explain another channel or category').addChannelTypes(...RULE_CHANNEL_TYPES))
        .addRoleOption((o) => o.setName('role').setDescription('Explain for a member with this role instead of you')))
    .addSubcommand((s) => withTool(s.setName('show').setDescription('A tool from an MCP server in full, as the model reads it, and what changed'), true))
    .addSubcommand((s) => withTarget(withTool(s.setName('enable').setDescription('Let me use a tool'), true), ' (wins over channel rules)'))
    .addSubcommand((s) => withTarget(withTool(s.setName('disable').setDescription('Stop me from using a tool'), true), ' (wins over channel rules)'))
    .addSubcommand((s) =>
      withTarget(
        withTool(s.setName('approval').setDescription('Make calls to a tool wait for a person\'s approval, or not'), true)
          .addStringOption((o) => o.setName('mode').setDescription('ask: wait for Approve; auto: run at once').setRequired(true).addChoices(
            { name: 'ask: wait for Approve', value: 'ask' },
            { name: 'auto: run at once (default)', value: 'auto' },
          )),
        ' (wins over channel rules; ask wins between roles)',
      ))
    .addSubcommand((s) =>
      withTarget(withTool(s.setName('reset').setDescription('Remove rules so defaults apply again'), false), '')
        .addBooleanOption((o) => o.setName('everywhere').setDescription('Remove the rules in every channel, category and role too')))
    .addSubcommand((s) =>
      s.setName('audit').setDescription('The latest changes to tools and settings')
        .addIntegerOption((o) => o.setName('count').setDescription(`How many (1-${AUDIT_SHOW_MAX}, default 10)`).setMinValue(1).setMaxValue(AUDIT_SHOW_MAX)))
    .addSubcommand((s) =>
      s.setName('log-channel').setDescription('Post every change in a channel (leave out to stop)')
        .addChannelOption((o) => o.setName('channel').setDescription('Where to post changes').addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement))),

  async execute(interaction, ctx) {
    if (!(await allowModerator(interaction, 'tools')) || !interaction.inGuild()) return;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    try {
      switch (interaction.options.getSubcommand()) {
        case 'list': return await listTools(interaction, ctx);
        case 'show': return await showTool(interaction, ctx);
        case 'enable': return await changeTool(interaction, ctx, true);
        case 'disable': return await changeTool(interaction, ctx, false);
        case 'approval': return await changeApproval(interaction, ctx);
        case 'reset': return await resetTools(interaction, ctx);
        case 'audit': return await showAudit(interaction, ctx);
        case 'log-channel': return await setLogChannel(interaction, ctx);
        default: throw new OptionProblem('I do not know that subcommand; it may be from an older version.');
      }
    } catch (error) {
      if (!(error instanceof OptionProblem)) ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/tools failed');
      const content = error instanceof OptionProblem ? error.message : `❌ That did not work (${describeError(error)}). Nothing was changed.`;
      await interaction.editReply({ content, allowedMentions: NO_MENTIONS });
    }
  },

  async autocomplete(interaction, ctx) {
    const typed = interaction.options.getFocused().trim().toLowerCase();
    const choices = ctx.rules.tools
      .filter((t) => t.name.toLowerCase().includes(typed))
      .slice(0, 25)
      .map((t) => ({ name: enabledByDefault(t) ? t.name : `${t.name} (${t.provenance ? 'MCP' : 'reaches the web'}: off by default)`, value: t.name }));
    await interaction.respond(choices);
  },
};
