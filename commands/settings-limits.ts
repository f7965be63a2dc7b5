/**
 * `/settings limits …`: the usage limits of this server (questions per hour and at once per member,
 * model tokens per member and per server per day) and the roles exempt from member limits. Every
 * change is a named write of the rules object, audited and posted to the log channel like every other.
 */
import type { ChatInputCommandInteraction, SlashCommandSubcommandGroupBuilder } from 'discord.js';
import type { RuleServices, Runtime, UsageServices } from '../src/discord/services.js';
import { LIMIT_NAMES, type LimitChange } from '../src/policy/index.js';
import { describeServerLimits, LIMIT_INFO } from '../src/discord/text/limits-text.js';
import { OptionProblem } from './command-options.js';
import { saveChange } from './moderation.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type LimitsServices = { rules: Pick<RuleServices, 'snapshot' | 'setLimits' | 'setLimitExemption'>; usage: Pick<UsageServices, 'defaultLimits'>; runtime: Pick<Runtime, 'logger'> };

/** The `limits` group of `/settings`. */
export function limitsGroup(group: SlashCommandSubcommandGroupBuilder): SlashCommandSubcommandGroupBuilder {
  return group
    .setName('limits')
    .setDescription('Usage limits on this server')
    .addSubcommand((s) => s.setName('show').setDescription('The limits in force here, and exempt roles'))
    .addSubcommand((s) => {
      s.setName('set').setDescription('Set limits for this server (0 = no limit); options left out stay as they are');
      for (const name of LIMIT_NAMES) s.addIntegerOption((o) => o.setName(LIMIT_INFO[name].option).setDescription(`${LIMIT_INFO[name].label} (0 = no limit)`).setMinValue(0));
      return s;
    })
    .addSubcommand((s) =>
      s.setName('reset').setDescription('Go back to the bot\'s default for a limit').addStringOption((o) =>
        o.setName('limit').setDescription('Which limit').setRequired(true).addChoices(
          ...LIMIT_NAMES.map((name) => ({ name: LIMIT_INFO[name].label, value: name })),
          { name: 'all of them', value: 'all' },
        )))
    .addSubcommand((s) => s.setName('exempt').setDescription('Members with this role have no member limits').addRoleOption((o) => o.setName('role').setDescription('The role').setRequired(true)))
    .addSubcommand((s) => s.setName('unexempt').setDescription('Members with this role have member limits again').addRoleOption((o) => o.setName('role').setDescription('The role').setRequired(true)));
}

/** Run a `/settings limits` subcommand; the reply text. */
export async function limitsCommand(interaction: GuildCommand, ctx: LimitsServices): Promise<string> {
  const sub = interaction.options.getSubcommand();
  if (sub === 'show') {
    const settings = await ctx.rules.snapshot(interaction.guildId);
    return ['**Usage limits on this server**', ...describeServerLimits(ctx.usage.defaultLimits, settings), '-# Members see theirs with `/usage`.'].join('\n');
  }
  if (sub === 'exempt' || sub === 'unexempt') {
    const role = interaction.options.getRole('role', true);
    if (role.id === interaction.guildId) throw new OptionProblem('@everyone cannot be exempt: that would switch member limits off for everyone. Use `/settings limits set` with 0 instead. Nothing was changed.');
    const exempt = sub === 'exempt';
    const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setLimitExemption(interaction.guildId, actor, { roleId: role.id, exempt }));
    return saved ? `✅ Done: ${saved.detail}. It applies from the next question.${exempt ? ' The server\'s daily token limit still applies to them.' : ''}${saved.logNote}` : '';
  }
  const change: LimitChange = {};
  if (sub === 'set') {
    for (const name of LIMIT_NAMES) {
      const value = interaction.options.getInteger(LIMIT_INFO[name].option);
      if (value !== null) change[name] = value;
    }
    if (Object.keys(change).length === 0) throw new OptionProblem('Give at least one limit to set (0 means no limit). Nothing was changed.');
  } else {
    const which = interaction.options.getString('limit', true);
    for (const name of LIMIT_NAMES) if (which === 'all' || which === name) change[name] = null;
    if (Object.keys(change).length === 0) throw new OptionProblem(`Unknown limit \`${which.slice(0, TEXT_CAPS.typedWord)}\`. Nothing was changed.`);
  }
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setLimits(interaction.guildId, actor, change));
  return saved ? `✅ Done: ${saved.detail}. It applies from the next question.${saved.logNote}` : '';
}
