/**
 * /ask question — in a channel: open a thread named after the question and answer there, step by step.
 * Inside a thread: continue that thread's conversation.
 */
import { InteractionContextType, MessageFlags, SlashCommandBuilder, type ChatInputCommandInteraction, type ThreadChannel } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import type { BotContext } from '../src/discord/context.js';
import { displayNameOf, scopeOf, threadName, turnSettings } from '../src/discord/interaction-info.js';
import { interactionTarget, NO_MENTIONS, threadTarget, type TurnTarget } from '../src/discord/turn-target.js';
import { runTurn, type TurnOutcome } from '../src/discord/thread-turn.js';
import { describeDiscordError, missingPermissions } from '../src/discord/discord-errors.js';
import { ThreadBusyError } from '../src/state/index.js';

const NEEDED_FOR_THREADS = ['View Channel', 'Send Messages', 'Create Public Threads', 'Send Messages in Threads'];

function headline(name: string, question: string): string {
  const q = question.length > 1500 ? `${question.slice(0, 1499)}…` : question;
  return `**${name}** asked: ${q}`;
}

export const ask: Command = {
  data: new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask a question: I reason step by step, using tools, in a thread.')
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) => o.setName('question').setDescription('What do you want to know?').setRequired(true).setMaxLength(4000)),

  async execute(interaction, ctx) {
    // Acknowledge first: Discord allows 3 seconds, and everything below may take longer.
    await interaction.deferReply();
    const question = interaction.options.getString('question', true).trim();
    const name = displayNameOf(interaction.member, interaction.user);
    const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id };
    const channel = interaction.channel;

    if (channel?.isThread()) {
      if (channel.locked) {
        await interaction.editReply({ content: 'This thread is locked, so I cannot answer here. Start a new /ask in the channel.', allowedMentions: NO_MENTIONS });
        return;
      }
      await interaction.editReply({ content: headline(name, question), allowedMentions: NO_MENTIONS });
      const outcome = await queued(ctx, interaction, channel.id, () => answer(ctx, threadTarget(channel), question, name, interaction, { ...logFields, threadId: channel.id }));
      await linkBack(interaction, name, question, outcome);
      return;
    }

    const missing = missingPermissions(interaction.appPermissions, NEEDED_FOR_THREADS);
    let thread: ThreadChannel | undefined;
    let note = '';
    if (missing.length === 0) {
      try {
        const reply = await interaction.editReply({ content: headline(name, question), allowedMentions: NO_MENTIONS });
        thread = await reply.startThread({ name: threadName(question), autoArchiveDuration: 1440 });
      } catch (error) {
        ctx.logger.warn({ err: error, ...logFields }, 'could not create a thread');
        note = describeDiscordError(error, 'open a thread for this question');
      }
    } else {
      note = `I cannot open a thread here: I am missing the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}. Answering here instead; follow-ups need a thread, so ask a moderator to grant ${missing.length > 1 ? 'them' : 'it'}.`;
    }

    if (!thread) {
      await interaction.editReply({ content: `${headline(name, question)}\n-# ⚠️ ${note}`, allowedMentions: NO_MENTIONS });
      await answer(ctx, interactionTarget(interaction), question, name, interaction, logFields);
      return;
    }
    const created = thread;
    const outcome = await queued(ctx, interaction, created.id, () => answer(ctx, threadTarget(created), question, name, interaction, { ...logFields, threadId: created.id }));
    await linkBack(interaction, name, question, outcome);
  },
};

async function answer(ctx: BotContext, target: TurnTarget, text: string, name: string, interaction: ChatInputCommandInteraction, logFields: Record<string, string | undefined>) {
  const scope = scopeOf(interaction, interaction.member);
  const { display, maxSteps } = await turnSettings(ctx, scope);
  return runTurn(ctx, { target, scope, author: { id: interaction.user.id, name }, text, display, maxSteps, logFields });
}

/** Run in the thread's queue; a thread busy for too long gets a clear message instead of a hang. */
async function queued(ctx: BotContext, interaction: ChatInputCommandInteraction, threadId: string, job: () => Promise<TurnOutcome>): Promise<TurnOutcome | undefined> {
  try {
    return await ctx.queue.run(threadId, job);
  } catch (error) {
    if (!(error instanceof ThreadBusyError)) throw error;
    await interaction.followUp({ content: error.message, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
    return undefined;
  }
}

/** Edit the original reply to show the answer's start and link to it in the thread. */
async function linkBack(interaction: ChatInputCommandInteraction, name: string, question: string, outcome: TurnOutcome | undefined) {
  if (!outcome?.answerMessage || !outcome.result?.answer) return;
  const head = headline(name, question);
  const link = `\n-# Full answer and steps: ${outcome.answerMessage.url}`;
  const room = 2000 - head.length - link.length - 4;
  const text = outcome.result.answer.trim();
  const preview = room < 80 ? '' : `\n> ${(text.length > room ? `${text.slice(0, room - 1)}…` : text).replace(/\n/g, '\n> ')}`;
  await interaction.editReply({ content: `${head}${preview}${link}`.slice(0, 2000), allowedMentions: NO_MENTIONS }).catch(() => undefined);
}

