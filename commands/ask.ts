/**
 * /ask question — in a channel: open a thread named after the question and answer there, step by step.
 * Inside a thread: continue that thread's conversation.
 */
import { InteractionContextType, MessageFlags, SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf, scopeOf, cachedMentionNames, threadName } from '../src/discord/interaction-info.js';
import { NO_MENTIONS } from '../src/discord/posting/mention-words.js';
import { interactionTarget, threadTarget } from '../src/discord/posting/target.js';
import type { Runtime, TurnServices } from '../src/discord/services.js';
import type { TurnOutcome } from '../src/discord/turn/outcome.js';
import type { TurnPlace } from '../src/discord/turn/pipeline.js';
import { describeDiscordError } from '../src/discord/posting/discord-errors.js';
import { commandPlaceProblem, missingFor } from '../src/discord/posting/preflight.js';
import { headline } from '../src/discord/text/headline.js';
import { fitMessage, quotePreview } from '../src/discord/posting/split-message.js';


export const ask: Command = {
  data: new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask a question: I reason step by step, using tools, in a thread.')
    // Offered in DMs too; they are answered only with ALLOW_DMS, and the refusal says so.
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addStringOption((o) => o.setName('question').setDescription('What do you want to know?').setRequired(true).setMaxLength(4000))
    .addAttachmentOption((o) => o.setName('file').setDescription('A text file or an image to ask about (optional)')),

  async execute(interaction, { turns, runtime: { logger } }) {
    const asked = interaction.options.getString('question', true);
    const file = interaction.options.getAttachment('file');
    const name = displayNameOf(interaction.member, interaction.user);
    const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id };
    const channel = interaction.channel;
    const threadId = channel?.isThread() ? channel.id : undefined;
    const scope = scopeOf(interaction, interaction.member);
    // What needs no storage is refused at once, privately: an empty or long question, a DM, a thread where the bot cannot post.
    const problem = turns.checkInput({ scope, text: asked }) ?? (threadId && interaction.guildId ? commandPlaceProblem('thread', interaction.appPermissions) : undefined);
    if (problem) {
      if (threadId) logger.warn({ ...logFields, threadId, problem }, '/ask refused before any model call');
      await interaction.reply({ content: problem, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      return;
    }
    // Acknowledge before anything touches storage (limits, the journal): Discord allows 3 seconds, and a
    // busy database must never make the command look dead.
    await interaction.deferReply();
    const slow = slowStorageNotice(interaction);
    let question = asked;
    const outcome = await turns.start({
      request: {
        scope,
        author: { id: interaction.user.id, name },
        text: asked,
        logFields: { ...logFields, threadId },
        attachments: file ? [{ name: file.name, url: file.url, contentType: file.contentType, size: file.size }] : undefined,
      },
      place: async (cleaned) => {
        slow.stop();
        question = cleaned;
        return placeFor(interaction, name, cleaned, { conversations: turns.conversations, logger, logFields });
      },
    });
    slow.stop();
    await report(interaction, name, question, outcome);
  },
};

/** Where an admitted /ask posts: a DM's interaction, the thread it was asked in, or a new thread on its reply. */
async function placeFor(
  interaction: ChatInputCommandInteraction,
  name: string,
  question: string,
  ctx: { conversations: TurnServices['conversations']; logger: Runtime['logger']; logFields: Record<string, string | undefined> },
): Promise<TurnPlace> {
  const channel = interaction.channel;
  const head = headline(name, question);
  // A DM: no thread to open and no memory to keep; the answer comes through the interaction.
  if (!interaction.guildId) {
    await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
    return { target: interactionTarget(interaction) };
  }
  if (channel?.isThread()) {
    if (channel.locked) return { unable: 'This thread is locked, so I cannot answer here. Start a new /ask in the channel.' };
    const reply = await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
    return { target: threadTarget(channel), reply: { channelId: reply.channelId, messageId: reply.id } };
  }
  const missing = missingFor('new thread', interaction.appPermissions);
  let note: string;
  if (missing.length === 0) {
    try {
      const reply = await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
      const thread = await reply.startThread({ name: threadName(question, cachedMentionNames(interaction.guild)), autoArchiveDuration: 1440 });
      // The thread is the asker's for good: `/reset` goes by this, whoever speaks first after one.
      await ctx.conversations.setStarter(thread.id, interaction.user.id).catch((error) => ctx.logger.warn({ err: error, ...ctx.logFields, threadId: thread.id }, 'could not record the thread\'s starter'));
      return { target: threadTarget(thread), reply: { channelId: reply.channelId, messageId: reply.id } };
    } catch (error) {
      ctx.logger.warn({ err: error, ...ctx.logFields }, 'could not create a thread');
      note = describeDiscordError(error, 'open a thread for this question', missingFor('new thread', interaction.appPermissions));
    }
  } else {
    note = `I cannot open a thread here: I am missing the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}. Answering here instead; follow-ups need a thread, so ask a moderator to grant ${missing.length > 1 ? 'them' : 'it'}.`;
  }
  await interaction.editReply({ content: `${head}\n-# ⚠️ ${note}`, allowedMentions: NO_MENTIONS });
  return { target: interactionTarget(interaction) };
}

/** After this long without an answer from storage, the member is told why nothing has happened yet. */
const SLOW_STORAGE_NOTICE_MS = 2_000;

/** Until `stop()`, say in the deferred reply after a while that storage is slow (the turn's place replaces it). */
function slowStorageNotice(interaction: ChatInputCommandInteraction): { stop(): void } {
  const timer = setTimeout(() => {
    void interaction.editReply({ content: '-# ⏳ Checking your usage limits is taking longer than usual (my storage is slow to answer). I start as soon as it does.', allowedMentions: NO_MENTIONS }).catch(() => undefined);
  }, SLOW_STORAGE_NOTICE_MS);
  return { stop: () => clearTimeout(timer) };
}

/** Replace the public "thinking…" reply with a private one: a refusal is for the asker's eyes only. */
async function refusePrivately(interaction: ChatInputCommandInteraction, content: string): Promise<void> {
  await interaction.deleteReply().catch(() => undefined);
  await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
}

/** Turn the outcome into what the asker sees: a private notice, a stopped note, or the reply pointing at the answer. */
async function report(interaction: ChatInputCommandInteraction, name: string, question: string, outcome: TurnOutcome): Promise<void> {
  switch (outcome.kind) {
    case 'refused':
      return refusePrivately(interaction, outcome.message);
    case 'busy':
    case 'unable':
      // The reply may already show the question (a thread that closed meanwhile): the reason goes privately.
      await interaction.followUp({ content: outcome.message, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).catch(() => undefined);
      return;
    case 'stopped':
      // Stopped where it could post no more: the reply in the channel says so. A reply inside that
      // thread is left alone: nothing more goes into a closed thread.
      if (interaction.channel?.isThread()) return;
      await interaction.editReply({ content: fitMessage(`${headline(name, question)}\n-# ⏹️ ${outcome.message}`), allowedMentions: NO_MENTIONS }).catch(() => undefined);
      return;
    case 'answered':
      return linkBack(interaction, name, question, outcome.result.answer, { url: outcome.answerMessage.url });
    case 'failed':
      // The thread refused the answer (a permission taken away): the channel's reply carries its start.
      if (outcome.result?.answer && !interaction.channel?.isThread()) return linkBack(interaction, name, question, outcome.result.answer, { failure: outcome.message });
  }
}

/**
 * Edit the original reply to show the answer's start and link to it in the thread. When the thread
 * refused the answer (a permission taken away mid-run), the reply in the channel carries the answer's
 * start and what went wrong instead, so the answer is not lost.
 */
async function linkBack(interaction: ChatInputCommandInteraction, name: string, question: string, answer: string | undefined, where: { url: string } | { failure: string }) {
  if (!answer) return;
  const head = headline(name, question);
  const link = 'url' in where ? `\n-# Full answer and steps: ${where.url}` : `\n-# ⚠️ ${where.failure}`;
  const room = 2000 - head.length - link.length - 4;
  const preview = room < 80 ? '' : `\n${quotePreview(answer.trim(), room)}`;
  await interaction.editReply({ content: fitMessage(`${head}${preview}${link}`), allowedMentions: NO_MENTIONS }).catch(() => undefined);
}
