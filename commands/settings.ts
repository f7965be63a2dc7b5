/**
 * /settings — how much of each run the bot shows in a channel (`full` | `actions` | `answer`), the
 * server's step limit, the model and persona, usage limits, where the bot answers without /ask
 * (settings-answers.ts), where memory is on (settings-memory.ts), and who
 * may schedule questions (`schedules off|moderators|everyone`). Moderators only, checked at registration and again at run time (like /tools);
 * every change is audited and posted to the log channel.
 */
import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import type { BotServices } from '../src/discord/services.js';
import { ruleChannel, NO_MENTIONS } from '../src/discord/members.js';
import { fitMessage } from '../src/discord/posting/split-message.js';
import { describeError } from '../src/errors.js';
import { STEP_LIMIT } from '../src/agent/run-defaults.js';
import { channelSettings, scheduleAccess, SKILL_ACCESS, skillAccess, type DisplayLevel, type ScheduleAccess, type SkillAccess } from '../src/policy/index.js';
import { displayProblem, scheduleAccessProblem, settingAnswer } from '../src/discord/text/setting-answers.js';
import { LEVEL_WORDS, SCHEDULE_WORDS, SKILL_WORDS, type SettingPlace } from '../src/discord/text/settings-text.js';
import { OptionProblem, placeOption, RULE_CHANNEL_TYPES } from './command-options.js';
import { allowModerator, saveChange } from './moderation.js';
import { completeModel, modelSubcommand, personaSubcommand, setModel, setPersona } from './settings-assistant.js';
import { limitsCommand, limitsGroup } from './settings-limits.js';
import { eraseMemory, eraseSubcommand, memoryLine, memorySubcommand, setMemory } from './settings-memory.js';
import { answersLine, answersSubcommand, setAnswers } from './settings-answers.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type SettingsServices = Pick<BotServices, 'rules' | 'usage' | 'runtime' | 'turns'>;

/** The channel (or category) a display setting is for: the option, or where the command was used. */
async function displayPlace(interaction: GuildCommand): Promise<SettingPlace> {
  return (await placeOption(interaction)) ?? { channelId: ruleChannel(interaction.channel).channelId };
}

async function setDisplay(interaction: GuildCommand, ctx: SettingsServices): Promise<string> {
  const level = interaction.options.getString('level', true);
  const problem = displayProblem(level);
  if (problem) throw new OptionProblem(problem);
  const place = await displayPlace(interaction);
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setDisplay(interaction.guildId, actor, { place, level: level === 'default' ? null : (level as DisplayLevel) }));
  return saved ? settingAnswer('display', saved) : '';
}

async function setStepLimit(interaction: GuildCommand, ctx: SettingsServices): Promise<string> {
  const limit = interaction.options.getInteger('limit');
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setStepLimit(interaction.guildId, actor, limit));
  return saved ? `✅ Done: ${saved.detail}. It applies from the next question.${saved.logNote}` : '';
}

async function setSchedules(interaction: GuildCommand, ctx: SettingsServices): Promise<string> {
  const who = interaction.options.getString('who', true);
  const problem = scheduleAccessProblem(who);
  if (problem) throw new OptionProblem(problem);
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setScheduleAccess(interaction.guildId, actor, who as ScheduleAccess));
  // A schedule whose owner may no longer have one pauses at its next run, saying why; none runs without its owner's right.
  return saved ? settingAnswer('schedules', saved) : '';
}

async function setSkills(interaction: GuildCommand, ctx: SettingsServices): Promise<string> {
  const who = interaction.options.getString('who', true);
  if (!SKILL_ACCESS.includes(who as SkillAccess)) throw new OptionProblem(`Unknown choice \`${who.slice(0, TEXT_CAPS.typedWord)}\`: use off, moderators or everyone. Nothing was changed.`);
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setSkillAccess(interaction.guildId, actor, who as SkillAccess));
  if (!saved) return '';
  // Off takes the skills' commands out of the server (kept, for when they are on again); on brings them back.
  const synced = await ctx.rules.skills.commands.sync(interaction.client, interaction.guildId);
  const note = synced.error ? `\n-# ⚠️ ${synced.error} The skills' commands follow at the next change.` : '';
  return `✅ Done: ${saved.detail}.${note}${saved.logNote}`;
}

const SOURCE_WORDS = { channel: 'set for this channel', category: 'set for its category', server: 'set for this server', default: "the bot's default" } as const;

async function show(interaction: GuildCommand, ctx: SettingsServices): Promise<string> {
  const here = ruleChannel(interaction.channel);
  const stored = await ctx.rules.snapshot(interaction.guildId);
  const current = channelSettings(stored, { ...here, guildId: interaction.guildId }, ctx.rules.channelDefaults);
  const persona = current.persona ? `“${current.persona.length > TEXT_CAPS.personaShown ? `${current.persona.slice(0, TEXT_CAPS.personaShown - 1)}…` : current.persona}”` : 'none';
  return [
    `**Settings in <#${here.channelId}>**`,
    `• Display: \`${current.display}\`, ${LEVEL_WORDS[current.display]} (${SOURCE_WORDS[current.displaySource]}).`,
    `• Step limit: ${current.maxSteps} per question (${SOURCE_WORDS[current.maxStepsSource]}).`,
    `• Model: \`${current.model}\` (${SOURCE_WORDS[current.modelSource]}).`,
    `• Persona: ${persona}${current.persona ? ` (${SOURCE_WORDS[current.personaSource]})` : ''}.`,
    memoryLine(stored, { ...here, guildId: interaction.guildId }),
    answersLine(stored, { ...here, guildId: interaction.guildId }),
    `• Scheduled questions: ${SCHEDULE_WORDS[scheduleAccess(stored)]} may have them (\`/settings schedules\`).`,
    `• Skills: ${SKILL_WORDS[skillAccess(stored)]} may write them (\`/settings skills\`).`,
  ].join('\n');
}

export const settings: Command = {
  data: new SlashCommandBuilder()
    .setName('settings')
    .setDescription('What I show, my model, persona, step limit, memory and usage limits here (moderators).')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((s) =>
      s.setName('display').setDescription('How much of each run I show in a channel')
        .addStringOption((o) => o.setName('level').setDescription('full, actions, or answer').setRequired(true).addChoices(
          { name: 'full: every step', value: 'full' },
          { name: 'actions: tool calls only', value: 'actions' },
          { name: 'answer: only the answer', value: 'answer' },
          { name: 'default (remove the setting)', value: 'default' },
        ))
        .addChannelOption((o) => o.setName('channel').setDescription('Channel or category (default: this channel)').addChannelTypes(...RULE_CHANNEL_TYPES)))
    .addSubcommand((s) =>
      s.setName('step-limit').setDescription('Most steps per question on this server')
        .addIntegerOption((o) => o.setName('limit').setDescription(`${STEP_LIMIT.min}-${STEP_LIMIT.max}; leave out for the default`).setMinValue(STEP_LIMIT.min).setMaxValue(STEP_LIMIT.max)))
    .addSubcommand(modelSubcommand)
    .addSubcommand(personaSubcommand)
    .addSubcommand(answersSubcommand)
    .addSubcommand(memorySubcommand)
    .addSubcommand(eraseSubcommand)
    .addSubcommand((s) =>
      s.setName('schedules').setDescription('Who may schedule questions (/schedule) on this server')
        .addStringOption((o) => o.setName('who').setDescription('off, moderators (the default) or everyone').setRequired(true).addChoices(
          { name: 'off: nobody', value: 'off' },
          { name: 'moderators: members with Manage Server (default)', value: 'moderators' },
          { name: 'everyone: every member', value: 'everyone' },
        )))
    .addSubcommand((s) =>
      s.setName('skills').setDescription('Who may write skills (/skill) on this server')
        .addStringOption((o) => o.setName('who').setDescription('off, moderators (the default) or everyone').setRequired(true).addChoices(
          { name: 'off: no skills here', value: 'off' },
          { name: 'moderators: Manage Server (default)', value: 'moderators' },
          { name: 'everyone: each their own', value: 'everyone' },
        )))
    .addSubcommand((s) => s.setName('show').setDescription('The settings in this channel'))
    .addSubcommandGroup(limitsGroup),

  async execute(interaction, ctx) {
    if (!(await allowModerator(interaction, 'settings')) || !interaction.inGuild()) return;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    let content: string;
    try {
      const sub = interaction.options.getSubcommand();
      if (interaction.options.getSubcommandGroup() === 'limits') content = await limitsCommand(interaction, ctx);
      else if (sub === 'display') content = await setDisplay(interaction, ctx);
      else if (sub === 'step-limit') content = await setStepLimit(interaction, ctx);
      else if (sub === 'model') content = await setModel(interaction, ctx);
      else if (sub === 'persona') content = await setPersona(interaction, ctx);
      else if (sub === 'answers') content = await setAnswers(interaction, ctx);
      else if (sub === 'memory') content = await setMemory(interaction, ctx);
      else if (sub === 'memory-erase') content = await eraseMemory(interaction, ctx);
      else if (sub === 'schedules') content = await setSchedules(interaction, ctx);
      else if (sub === 'skills') content = await setSkills(interaction, ctx);
      else content = await show(interaction, ctx);
    } catch (error) {
      if (!(error instanceof OptionProblem)) ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/settings failed');
      content = error instanceof OptionProblem ? error.message : `❌ That did not work (${describeError(error)}). Nothing was changed.`;
    }
    // An empty string means saveChange already told the moderator what went wrong.
    if (content) await interaction.editReply({ content: fitMessage(content), allowedMentions: NO_MENTIONS });
  },

  async autocomplete(interaction, ctx) {
    if (interaction.options.getSubcommand() === 'model') await completeModel(interaction, ctx);
    else await interaction.respond([]);
  },
};
