/**
 * /feedback — how members rate the bot's answers, for moderators (Manage Server; registered with it as
 * the default member permission and checked again when it runs, as the other moderator commands are):
 * `summary [channel:] [days:]` counts answers and votes with the 👍 rate per model, persona, channel and
 * tool, and lists the worst-rated questions with links; `export [days:]` gives the rated answers as a
 * private JSONL file in the evaluation suite format (`npm run eval`). Both read the feedback records
 * the turns keep; neither shows who voted.
 */
import { ChannelType, InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import type { BotServices } from '../src/discord/services.js';
import { feedbackSummary } from '../src/discord/text/feedback-text.js';
import { describeError } from '../src/errors.js';
import { exportFeedback } from './feedback-export.js';
import { allowModerator } from './moderation.js';

/** Most days a summary or an export reaches back, and the most answers it reads. */
export const FEEDBACK_MAX_DAYS = 90;
export const FEEDBACK_MAX_ANSWERS = 5_000;
const DAY_MS = 86_400_000;

/** Where answers are asked: channels and the threads in them (a thread's answers are also its channel's). */
const ASKED_IN = [ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildForum, ChannelType.GuildVoice, ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread] as const;

const daysOption = (fallback: number) => (o: import('discord.js').SlashCommandIntegerOption) =>
  o.setName('days').setDescription(`How many days back (1-${FEEDBACK_MAX_DAYS}, default ${fallback})`).setMinValue(1).setMaxValue(FEEDBACK_MAX_DAYS);

export const feedback: Command = {
  data: new SlashCommandBuilder()
    .setName('feedback')
    .setDescription('How members rate my answers (moderators).')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((s) =>
      s.setName('summary').setDescription('Answers, votes, 👍 rate per model, persona, channel and tool; the worst-rated questions')
        .addChannelOption((o) => o.setName('channel').setDescription('Only answers asked in this channel or thread').addChannelTypes(...ASKED_IN))
        .addIntegerOption(daysOption(7)))
    .addSubcommand((s) => s.setName('export').setDescription('The rated answers as an evaluation suite (a private JSONL file for npm run eval)').addIntegerOption(daysOption(30))),

  async execute(interaction, ctx) {
    if (!(await allowModerator(interaction, 'feedback', { hint: 'members rate answers with the 👍 and 👎 under them' })) || !interaction.inGuild()) return;
    // Acknowledged before storage is read (a month of a busy server is thousands of records).
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const subcommand = interaction.options.getSubcommand();
    try {
      if (subcommand === 'export') return await exportFeedback(interaction, ctx, windowOf(interaction, 30, ctx), FEEDBACK_MAX_ANSWERS);
      await summary(interaction, ctx);
    } catch (error) {
      ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, subcommand }, '/feedback failed');
      await interaction.editReply({ content: `❌ I could not read the feedback (${describeError(error)}). Nothing was ${subcommand === 'export' ? 'exported' : 'changed'}; try again in a moment.`, allowedMentions: NO_MENTIONS });
    }
  },
};

/** The days asked for (or the default), and when they start. */
function windowOf(interaction: ChatInputCommandInteraction, fallback: number, ctx: Pick<BotServices, 'runtime'>): { days: number; since: number } {
  const days = interaction.options.getInteger('days') ?? fallback;
  return { days, since: ctx.runtime.now().getTime() - days * DAY_MS };
}

async function summary(interaction: ChatInputCommandInteraction<'cached' | 'raw'>, ctx: BotServices): Promise<void> {
  const { days, since } = windowOf(interaction, 7, ctx);
  const channelId = interaction.options.getChannel('channel')?.id;
  const { records, more } = await ctx.turns.feedback.list(interaction.guildId, since, FEEDBACK_MAX_ANSWERS);
  const here = channelId ? records.filter((r) => r.channelId === channelId || r.threadId === channelId) : records;
  const content = feedbackSummary(here, { guildId: interaction.guildId, days, limit: FEEDBACK_MAX_ANSWERS, more, ...(channelId ? { channelId } : {}) });
  await interaction.editReply({ content, allowedMentions: NO_MENTIONS });
}
