/**
 * /ask question — in a channel: open a thread named after the question and answer there, step by step.
 * Inside a thread: continue that thread's conversation.
 */
import { InteractionContextType, MessageFlags, SlashCommandBuilder, type ChatInputCommandInteraction, type Message, type ThreadChannel } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf, scopeOf, cachedMentionNames, threadName } from '../src/discord/interaction-info.js';
import { interactionTarget, NO_MENTIONS, threadTarget } from '../src/discord/turn-target.js';
import type { TurnOutcome } from '../src/discord/thread-turn.js';
import type { AdmittedTurn } from '../src/discord/turns.js';
import { escapeDisplayName } from '../src/agent/clean-text.js';
import { describeDiscordError, missingPermissions, missingPermissionsSentence } from '../src/discord/discord-errors.js';
import { NEEDED_IN_THREADS } from '../src/discord/preflight.js';
import { fitMessage, graphemeBoundary } from '../src/discord/split-message.js';

const NEEDED_FOR_THREADS = ['View Channel', 'Send Messages', 'Create Public Threads', 'Send Messages in Threads'];

function headline(name: string, question: string): string {
  const q = question.length > 1500 ? `${question.slice(0, graphemeBoundary(question, 1499))}…` : question;
  return `**${escapeDisplayName(name)}** asked: ${q}`;
}

export const ask: Command = {
  data: new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask a question: I reason step by step, using tools, in a thread.')
    // Offered in DMs too; they are answered only with ALLOW_DMS, and the refusal says so.
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addStringOption((o) => o.setName('question').setDescription('What do you want to know?').setRequired(true).setMaxLength(4000))
    .addAttachmentOption((o) => o.setName('file').setDescription('A text file or an image to ask about (optional)')),

  async execute(interaction, { turns, logger }) {
    const asked = interaction.options.getString('question', true);
    const file = interaction.options.getAttachment('file');
    const name = displayNameOf(interaction.member, interaction.user);
    const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id };
    const channel = interaction.channel;
    const threadId = channel?.isThread() ? channel.id : undefined;
    const admission = await turns.admit({
      scope: scopeOf(interaction, interaction.member),
      author: { id: interaction.user.id, name },
      text: asked,
      logFields: { ...logFields, threadId },
      attachments: file ? [{ name: file.name, url: file.url, contentType: file.contentType, size: file.size }] : undefined,
    });
    // A refusal is private and immediate: no thread, no model call.
    if (!admission.ok) {
      await interaction.reply({ content: admission.message, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      return;
    }
    const { turn } = admission;
    const question = turn.text;
    if (channel?.isThread() && interaction.guildId) {
      // The same pre-flight as follow-ups, before any model call: an answer nobody can see is not worth one.
      const missing = missingPermissions(interaction.appPermissions, NEEDED_IN_THREADS);
      if (missing.length > 0) {
        turn.cancel();
        logger.warn({ ...logFields, threadId, missing }, '/ask in a thread where the bot cannot post: refused before any model call');
        await interaction.reply({ content: missingPermissionsSentence(missing, 'answer in this thread'), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
        return;
      }
    }
    // Acknowledge before anything slow: Discord allows 3 seconds.
    await interaction.deferReply();

    if (!interaction.guildId) {
      // A DM: no thread to open and no memory to keep; the answer comes through the interaction.
      await interaction.editReply({ content: headline(name, question), allowedMentions: NO_MENTIONS });
      await turn.run(interactionTarget(interaction));
      return;
    }

    if (channel?.isThread()) {
      if (channel.locked) {
        turn.cancel();
        await interaction.editReply({ content: 'This thread is locked, so I cannot answer here. Start a new /ask in the channel.', allowedMentions: NO_MENTIONS });
        return;
      }
      const reply = await interaction.editReply({ content: headline(name, question), allowedMentions: NO_MENTIONS });
      await finish(interaction, turn, threadTarget(channel), name, question, reply);
      return;
    }

    const missing = missingPermissions(interaction.appPermissions, NEEDED_FOR_THREADS);
    let thread: ThreadChannel | undefined;
    let reply: Message | undefined;
    let note = '';
    if (missing.length === 0) {
      try {
        reply = await interaction.editReply({ content: headline(name, question), allowedMentions: NO_MENTIONS });
        thread = await reply.startThread({ name: threadName(question, cachedMentionNames(interaction.guild)), autoArchiveDuration: 1440 });
      } catch (error) {
        logger.warn({ err: error, ...logFields }, 'could not create a thread');
        note = describeDiscordError(error, 'open a thread for this question', missingPermissions(interaction.appPermissions, NEEDED_FOR_THREADS));
      }
    } else {
      note = `I cannot open a thread here: I am missing the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}. Answering here instead; follow-ups need a thread, so ask a moderator to grant ${missing.length > 1 ? 'them' : 'it'}.`;
    }

    if (!thread) {
      await interaction.editReply({ content: `${headline(name, question)}\n-# ⚠️ ${note}`, allowedMentions: NO_MENTIONS });
      await turn.run(interactionTarget(interaction));
      return;
    }
    await finish(interaction, turn, threadTarget(thread), name, question, reply);
  },
};

/** Run the turn in its thread, then point the original reply at the answer (or say why there is none). */
async function finish(interaction: ChatInputCommandInteraction, turn: AdmittedTurn, target: ReturnType<typeof threadTarget>, name: string, question: string, reply?: Message): Promise<void> {
  const outcome = await turn.run(target, reply ? { reply: { channelId: reply.channelId, messageId: reply.id } } : undefined);
  const notice = outcome.busy ?? outcome.unable;
  if (notice) {
    await interaction.followUp({ content: notice, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).catch(() => undefined);
    return;
  }
  if (outcome.stopped) {
    // The thread was closed under the run (locked, archived, deleted): the reply in the channel says so.
    // A reply inside that thread is left alone: nothing more goes into a closed thread.
    if (interaction.channel?.isThread()) return;
    await interaction.editReply({ content: fitMessage(`${headline(name, question)}\n-# ⏹️ ${outcome.stopped}`), allowedMentions: NO_MENTIONS }).catch(() => undefined);
    return;
  }
  await linkBack(interaction, name, question, outcome);
}

/**
 * Edit the original reply to show the answer's start and link to it in the thread. When the thread
 * refused the answer (a permission taken away mid-run), the reply in the channel carries the answer's
 * start and what went wrong instead, so the answer is not lost.
 */
async function linkBack(interaction: ChatInputCommandInteraction, name: string, question: string, outcome: TurnOutcome) {
  if (!outcome.result?.answer) return;
  const refused = !outcome.answerMessage && outcome.failure !== undefined && !interaction.channel?.isThread();
  if (!outcome.answerMessage && !refused) return;
  const head = headline(name, question);
  const link = outcome.answerMessage ? `\n-# Full answer and steps: ${outcome.answerMessage.url}` : `\n-# ⚠️ ${outcome.failure}`;
  const room = 2000 - head.length - link.length - 4;
  const text = outcome.result.answer.trim();
  const preview = room < 80 ? '' : `\n> ${(text.length > room ? `${text.slice(0, graphemeBoundary(text, room - 1))}…` : text).replace(/\n/g, '\n> ')}`;
  await interaction.editReply({ content: fitMessage(`${head}${preview}${link}`), allowedMentions: NO_MENTIONS }).catch(() => undefined);
}
