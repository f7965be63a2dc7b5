/**
 * `/settings model` and `/settings persona`: which model answers, and with what extra instructions,
 * per server, category or channel (channel > category > server > the bot's default, as for tool
 * rules). A persona changes tone, language and focus; it cannot touch tools, limits or safety rules,
 * and the bot's prompt tells the model so. Audited and posted like every other change.
 */
import type { AutocompleteInteraction, ChatInputCommandInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import { cleanText } from '../src/agent/clean-text.js';
import type { RuleServices, Runtime } from '../src/discord/services.js';
import { modelIsAllowed } from '../src/policy/index.js';
import { choosableModels, modelProblem } from '../src/discord/text/choice-answers.js';
import { personaProblem, settingAnswer } from '../src/discord/text/setting-answers.js';
import { PERSONA_MAX_CHARS } from '../src/state/index.js';
import type { SettingPlace } from '../src/discord/text/settings-text.js';
import { OptionProblem, placeOption, RULE_CHANNEL_TYPES } from './command-options.js';
import { saveChange } from './moderation.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type AssistantServices = { rules: Pick<RuleServices, 'setModel' | 'setPersona' | 'channelDefaults' | 'serverModels'>; runtime: Pick<Runtime, 'logger'> };

const withPlace = (s: SlashCommandSubcommandBuilder) =>
  s.addChannelOption((o) => o.setName('channel').setDescription('Only this channel or category (default: the whole server)').addChannelTypes(...RULE_CHANNEL_TYPES));

export function modelSubcommand(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return withPlace(
    s.setName('model').setDescription('Which model answers here')
      .addStringOption((o) => o.setName('model').setDescription('A model the bot may use, or "default"').setRequired(true).setAutocomplete(true).setMaxLength(100)),
  );
}

export function personaSubcommand(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return withPlace(
    s.setName('persona').setDescription('Extra instructions for tone, language and focus here')
      .addStringOption((o) => o.setName('text').setDescription(`At most ${PERSONA_MAX_CHARS} characters`).setMaxLength(PERSONA_MAX_CHARS))
      .addBooleanOption((o) => o.setName('reset').setDescription('Remove the persona set here')),
  );
}

/** Where a per-place setting goes: the channel or category given, else the whole server. */
async function settingPlace(interaction: GuildCommand): Promise<SettingPlace> {
  return (await placeOption(interaction)) ?? {};
}

/** The models a moderator may pick (the console offers the same). */
const choosable = (ctx: AssistantServices) => choosableModels(ctx.rules.channelDefaults, ctx.rules.serverModels);

export async function setModel(interaction: GuildCommand, ctx: AssistantServices): Promise<string> {
  const chosen = interaction.options.getString('model', true).trim();
  const place = await settingPlace(interaction);
  const reset = chosen.toLowerCase() === 'default';
  if (!reset && !modelIsAllowed(chosen, ctx.rules.channelDefaults)) {
    throw new OptionProblem(modelProblem(chosen, await choosable(ctx)));
  }
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setModel(interaction.guildId, actor, { place, model: reset ? null : chosen }));
  return saved ? settingAnswer('model', saved) : '';
}

export async function setPersona(interaction: GuildCommand, ctx: AssistantServices): Promise<string> {
  const reset = interaction.options.getBoolean('reset') ?? false;
  const text = cleanText(interaction.options.getString('text') ?? '').trim();
  if (!reset && !text) throw new OptionProblem('Give the persona as `text` (tone, language, focus), or `reset: True` to remove it. Nothing was changed.');
  const problem = personaProblem(text);
  if (problem) throw new OptionProblem(problem);
  const place = await settingPlace(interaction);
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setPersona(interaction.guildId, actor, { place, text: reset ? null : text }));
  return saved ? settingAnswer('persona', saved) : '';
}

export async function completeModel(interaction: AutocompleteInteraction, ctx: AssistantServices): Promise<void> {
  const typed = interaction.options.getFocused().trim().toLowerCase();
  const names = ['default', ...(await choosable(ctx))].filter((m) => m.toLowerCase().includes(typed)).slice(0, 25);
  await interaction.respond(names.map((m) => ({ name: m === 'default' ? `default (${ctx.rules.channelDefaults.model})` : m, value: m })));
}
