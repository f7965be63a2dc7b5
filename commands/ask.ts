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
import { closeOpenFence, fitMessage, graphemeBoundary, quotePreview } from '../src/discord/split-message.js';

const NEEDED_FOR_THREADS = ['View Channel', 'Send Messages', 'Create Public Threads', 'Send Messages in Threads'];

function headline(name: string, question: string): string {
  // A question cut (or written) inside a code block must not swallow the lines the reply adds below it.
  const q = closeOpenFence(question.length > 1500 ? `${question.slice(0, graphemeBoundary(question, 1499))}…` : question);
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

  async execute(interaction, { turns, conversations, logger }) {
    const asked = interaction.options.getString('question', true);
    const file = interaction.options.getAttachment('file');
    const name = displayNameOf(interaction.member, interaction.user);
    const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id };
    const channel = interaction.channel;
    const threadId = channel?.isThread() ? channel.id : undefined;
    const scope = scopeOf(interaction, interaction.member);
    // What needs no storage is refused at once, privately: an empty or long question, a DM, a thread where the bot cannot post.
    const problem = turns.checkInput({ scope, text: asked }) ?? (threadId && interaction.guildId ? threadPermissionProblem(interaction) : undefined);
    if (problem) {
      if (threadId) logger.warn({ ...logFields, threadId, problem }, '/ask refused before any model call');
      await interaction.reply({ content: problem, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      return;
    }
    // Acknowledge before anything touches storage (limits, the journal): Discord allows 3 seconds, and a
    // busy database must never make the command look dead.
    await interaction.deferReply();
    const admission = await whileSlow(interaction, turns.admit({
      scope,
      author: { id: interaction.user.id, name },
      text: asked,
      logFields: { ...logFields, threadId },
      attachments: file ? [{ name: file.name, url: file.url, contentType: file.contentType, size: file.size }] : undefined,
    }));
    // A refusal (a usage limit) is private: no thread, no model call.
    if (!admission.ok) return refusePrivately(interaction, admission.message);
    const { turn } = admission;
    const question = turn.text;

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
        // The thread is the asker's for good: `/reset` goes by this, whoever speaks first after one.
        await conversations.setStarter(thread.id, interaction.user.id).catch((error) => logger.warn({ err: error, ...logFields, threadId: thread?.id }, 'could not record the thread\'s starter'));
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

/** In a thread: the pre-flight follow-ups get too, before any model call (an answer nobody can see is not worth one). */
function threadPermissionProblem(interaction: ChatInputCommandInteraction): string | undefined {
  const missing = missingPermissions(interaction.appPermissions, NEEDED_IN_THREADS);
  return missing.length > 0 ? missingPermissionsSentence(missing, 'answer in this thread') : undefined;
}

/** After this long without an answer from storage, the member is told why nothing has happened yet. */
const SLOW_STORAGE_NOTICE_MS = 2_000;

/** Wait for `work`; if it is slow, say so in the deferred reply meanwhile (it is replaced when the turn starts). */
async function whileSlow<T>(interaction: ChatInputCommandInteraction, work: Promise<T>): Promise<T> {
  const timer = setTimeout(() => {
    void interaction.editReply({ content: '-# ⏳ Checking your usage limits is taking longer than usual (my storage is slow to answer). I start as soon as it does.', allowedMentions: NO_MENTIONS }).catch(() => undefined);
  }, SLOW_STORAGE_NOTICE_MS);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

/** Replace the public "thinking…" reply with a private one: a refusal is for the asker's eyes only. */
async function refusePrivately(interaction: ChatInputCommandInteraction, content: string): Promise<void> {
  await interaction.deleteReply().catch(() => undefined);
  await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
}

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
  const preview = room < 80 ? '' : `\n${quotePreview(outcome.result.answer.trim(), room)}`;
  await interaction.editReply({ content: fitMessage(`${head}${preview}${link}`), allowedMentions: NO_MENTIONS }).catch(() => undefined);
}
