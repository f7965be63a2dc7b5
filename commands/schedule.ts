/**
 * /schedule — questions the bot asks for a member on a schedule: `add` (the question, or a skill and its
 * inputs; `when` in plain words or cron, the channel, a new thread per run or one for all), `list`, `pause`, `resume`, `remove`
 * and `run` (now). Who may own schedules is the server's choice (`/settings schedules`, moderators by
 * default), checked here and again before every run; a member acts on their own schedules, a moderator
 * on anyone's. Every change is audited. Replies are private.
 */
import { ChannelType, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { fitMessage } from '../src/discord/posting/split-message.js';
import { WHEN_MAX_CHARS } from '../src/schedules/index.js';
import { describeError } from '../src/errors.js';
import { OptionProblem } from './command-options.js';
import { completeSchedule, completeWhen } from './schedule-autocomplete.js';
import { completeSkill } from './skill-autocomplete.js';
import { addSchedule } from './schedule-add.js';
import { listSchedules, pauseSchedule, removeSchedule, resumeSchedule, runSchedule } from './schedule-subcommands.js';

const scheduleOption = (o: import('discord.js').SlashCommandStringOption) =>
  o.setName('schedule').setDescription('Which schedule (start typing its question or id)').setRequired(true).setAutocomplete(true).setMaxLength(16);

export const schedule: Command = {
  data: new SlashCommandBuilder()
    .setName('schedule')
    .setDescription('Questions I ask for you on a schedule, each run in its own thread.')
    .setContexts(InteractionContextType.Guild)
    .addSubcommand((s) =>
      s.setName('add').setDescription('Schedule a question (or a skill)')
        .addStringOption((o) => o.setName('when').setDescription('e.g. "every weekday at 09:00 Europe/Paris", "every 2 hours", or cron "0 9 * * 1-5 UTC"')
          .setRequired(true).setMaxLength(WHEN_MAX_CHARS).setAutocomplete(true))
        .addStringOption((o) => o.setName('question').setDescription('What to ask each time (not with a skill)').setMaxLength(4000))
        .addChannelOption((o) => o.setName('channel').setDescription('Where the runs post (default: here)').addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement))
        .addStringOption((o) => o.setName('thread').setDescription('A new thread per run (default), or one thread for all runs').addChoices(
          { name: 'new: a thread per run, named with its date', value: 'new' },
          { name: 'same: one thread for all runs', value: 'same' },
        ))
        .addStringOption((o) => o.setName('skill').setDescription('A skill to run instead of a question').setAutocomplete(true).setMaxLength(32))
        .addStringOption((o) => o.setName('inputs').setDescription('The skill\'s inputs, separated by " | "').setMaxLength(3500)))
    .addSubcommand((s) => s.setName('list').setDescription("This server's scheduled questions, and why any is paused"))
    .addSubcommand((s) => s.setName('pause').setDescription('Pause a schedule').addStringOption(scheduleOption)
      .addStringOption((o) => o.setName('reason').setDescription('Why (shown in /schedule list)').setMaxLength(200)))
    .addSubcommand((s) => s.setName('resume').setDescription('Resume a paused schedule').addStringOption(scheduleOption))
    .addSubcommand((s) => s.setName('remove').setDescription('Remove a schedule').addStringOption(scheduleOption))
    .addSubcommand((s) => s.setName('run').setDescription('Run a schedule now, as its owner').addStringOption(scheduleOption)),

  async execute(interaction, services) {
    if (!interaction.inGuild()) {
      await interaction.reply({ content: '`/schedule` works inside a server.', flags: MessageFlags.Ephemeral });
      return;
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    let content: string | string[];
    try {
      const sub = interaction.options.getSubcommand();
      if (sub === 'add') content = await addSchedule(interaction, services);
      else if (sub === 'list') content = await listSchedules(interaction, services);
      else if (sub === 'pause') content = await pauseSchedule(interaction, services);
      else if (sub === 'resume') content = await resumeSchedule(interaction, services);
      else if (sub === 'remove') content = await removeSchedule(interaction, services);
      else content = await runSchedule(interaction, services);
    } catch (error) {
      if (!(error instanceof OptionProblem)) services.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/schedule failed');
      content = error instanceof OptionProblem ? error.message : `❌ That did not work (${describeError(error)}). Nothing was changed; try again in a moment.`;
    }
    const [first, ...more] = typeof content === 'string' ? [content] : content;
    await interaction.editReply({ content: fitMessage(first ?? ''), allowedMentions: NO_MENTIONS });
    for (const part of more) await interaction.followUp({ content: fitMessage(part), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  },

  async autocomplete(interaction, services) {
    const focused = interaction.options.getFocused(true);
    if (focused.name === 'when') await completeWhen(interaction, services, focused.value);
    else if (focused.name === 'schedule') await completeSchedule(interaction, services, focused.value);
    else if (focused.name === 'skill') await completeSkill(interaction, services);
    else await interaction.respond([]);
  },
};
