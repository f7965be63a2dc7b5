/**
 * Where an admitted turn posts, for each origin, decided in this one place and only once the turn is
 * admitted (so a refused `/ask` never opens a thread):
 *
 * - `/ask` and a skill's run in a channel open a thread on the reply; in a thread it answers there; in a DM (and where no
 *   thread can be opened) it answers through the interaction, saying why in the reply.
 * - Ask about this message opens a thread on that message (or answers in the thread it is in).
 * - Continue and follow-ups answer in their thread.
 * - A mention opens a thread on its message; a scheduled run on a message in its channel (or posts in
 *   the schedule's one thread).
 * - A turn resumed after an approval posts where it began, found again from its record (its thread, or
 *   its interaction's webhook while it lives).
 *
 * A thread the bot opens is its asker's for good: `/reset` goes by the starter recorded here.
 */
import type { ChatInputCommandInteraction, Interaction, RepliableInteraction } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { ConversationStore } from '../../state/index.js';
import { cachedMentionNames, displayNameOf, threadName, NO_MENTIONS } from '../members.js';
import { describeDiscordError, missingFor } from '../posting/permissions.js';
import { interactionTarget, targetOf, threadTarget, type PlaceRef } from '../posting/target.js';
import type { TurnOrigin } from './origin.js';
import { headline, SKILL_VERB } from './reply.js';
import type { CheckedText, Placement } from './record.js';

/** Where the turn posts, or why it cannot post anywhere (the turn is given up, its claim freed). */
export type Placed = (Placement & { notice?: string }) | { unable: string };

export interface PlaceContext {
  conversations: Pick<ConversationStore, 'setStarter'>;
  logger: Logger;
}

/** An interaction's webhook lasts 15 minutes; a turn posting through it stops waiting a minute before. */
const INTERACTION_LIFETIME_MS = 14 * 60_000;

export async function placeFor(origin: TurnOrigin, ctx: PlaceContext): Promise<Placed> {
  const text = origin.request.text;
  switch (origin.kind) {
    case 'ask':
      return placeAsk(origin.interaction, text, ctx, origin.request.logFields, headline(nameOf(origin.interaction), text));
    case 'skill': {
      // Placed like /ask, announced as the skill it runs; a note (no command of its own) stays under the reply.
      const head = headline(nameOf(origin.interaction), text, SKILL_VERB);
      const placed = await placeAsk(origin.interaction, text, ctx, origin.request.logFields, origin.note ? `${head}\n-# ℹ️ ${origin.note}` : head);
      return origin.note && !('unable' in placed) ? { ...placed, notice: [placed.notice, origin.note].filter(Boolean).join(' ') } : placed;
    }
    case 'ask-about':
      return placeAskAbout(origin, text, ctx);
    case 'continue':
      return { target: threadTarget(origin.thread), place: { kind: 'thread', threadId: origin.thread.id } };
    case 'schedule':
      return placeScheduled(origin, ctx);
    case 'mention':
      return placeOnMessage(origin, text, ctx);
    case 'follow-up':
      return { target: origin.thread, place: { kind: 'thread', threadId: origin.thread.conversationKey ?? '' } };
    case 'resume': {
      const { turn } = origin;
      const target = await targetOf(origin.client, turn.place);
      if (!target) return { unable: 'I cannot reach the place of this run any more (its thread is gone, or its interaction has expired), so it cannot go on.' };
      return { target, place: turn.place, ...(turn.reply ? { reply: turn.reply } : {}) };
    }
  }
}

/** A mention in a channel: a thread on the member's message, named from the question, theirs for good. */
async function placeOnMessage(origin: Extract<TurnOrigin, { kind: 'mention' }>, question: CheckedText, ctx: PlaceContext): Promise<Placed> {
  const { message, request } = origin;
  try {
    const thread = await message.startThread({ name: threadName(question, cachedMentionNames(message.guild)), autoArchiveDuration: 1440 });
    await recordStarter(ctx, thread.id, request.author.id, request.logFields);
    return { target: threadTarget(thread), place: { kind: 'thread', threadId: thread.id } };
  } catch (error) {
    ctx.logger.warn({ err: error, ...request.logFields }, 'could not open a thread on a message that mentions the bot');
    const me = message.guild.members.me;
    const channel = message.channel;
    return { unable: describeDiscordError(error, 'open a thread on your message', missingFor('new thread', me && 'permissionsFor' in channel ? channel.permissionsFor(me) : null)) };
  }
}

/**
 * A scheduled run: into the schedule's one thread (a message starts each run), or a new thread on a
 * message in its channel, named with the run's date, the owner's for good. The runner hears where
 * through its `placed` hook.
 */
async function placeScheduled(origin: Extract<TurnOrigin, { kind: 'schedule' }>, ctx: PlaceContext): Promise<Placed> {
  const { channel, request } = origin;
  try {
    if (origin.thread) {
      const start = await origin.thread.send({ content: origin.note ? `${origin.headline}\n${origin.note}` : origin.headline, allowedMentions: NO_MENTIONS });
      return { target: threadTarget(origin.thread), place: { kind: 'thread', threadId: origin.thread.id }, reply: { channelId: start.channelId, messageId: start.id } };
    }
    const start = await channel.send({ content: origin.headline, allowedMentions: NO_MENTIONS });
    const thread = await start.startThread({ name: origin.threadName, autoArchiveDuration: 1440 });
    await recordStarter(ctx, thread.id, request.author.id, request.logFields);
    if (origin.note) await thread.send({ content: origin.note, allowedMentions: NO_MENTIONS });
    return { target: threadTarget(thread), place: { kind: 'thread', threadId: thread.id }, reply: { channelId: start.channelId, messageId: start.id } };
  } catch (error) {
    ctx.logger.warn({ err: error, ...request.logFields }, 'could not open the thread of a scheduled run');
    const me = channel.guild.members.me;
    return { unable: describeDiscordError(error, `open a thread for this scheduled question in <#${channel.id}>`, missingFor('new thread', me ? channel.permissionsFor(me) : null)) };
  }
}

/** The interaction's webhook as the place: no thread, no memory. */
function throughInteraction(interaction: RepliableInteraction): Placed {
  const place: PlaceRef = { kind: 'interaction', applicationId: interaction.applicationId, token: interaction.token, channelId: interaction.channelId ?? '', expiresAt: interaction.createdTimestamp + INTERACTION_LIFETIME_MS };
  return { target: interactionTarget(interaction), place };
}

function nameOf(interaction: Interaction): string {
  return displayNameOf(interaction.member, interaction.user);
}

async function placeAsk(interaction: ChatInputCommandInteraction, question: CheckedText, ctx: PlaceContext, logFields: Record<string, string | undefined>, head: string): Promise<Placed> {
  const channel = interaction.channel;
  // A DM: no thread to open and no memory to keep; the answer comes through the interaction.
  if (!interaction.guildId) {
    await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
    return throughInteraction(interaction);
  }
  if (channel?.isThread()) {
    if (channel.locked) return { unable: 'This thread is locked, so I cannot answer here. Start a new /ask in the channel.' };
    const reply = await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
    return { target: threadTarget(channel), place: { kind: 'thread', threadId: channel.id }, reply: { channelId: reply.channelId, messageId: reply.id } };
  }
  const missing = missingFor('new thread', interaction.appPermissions);
  let note: string;
  if (missing.length === 0) {
    try {
      const reply = await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
      const thread = await reply.startThread({ name: threadName(question, cachedMentionNames(interaction.guild)), autoArchiveDuration: 1440 });
      await recordStarter(ctx, thread.id, interaction.user.id, logFields);
      return { target: threadTarget(thread), place: { kind: 'thread', threadId: thread.id }, reply: { channelId: reply.channelId, messageId: reply.id } };
    } catch (error) {
      ctx.logger.warn({ err: error, ...logFields }, 'could not create a thread');
      note = describeDiscordError(error, 'open a thread for this question', missingFor('new thread', interaction.appPermissions));
    }
  } else {
    note = `I cannot open a thread here: I am missing the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}. Answering here instead; follow-ups need a thread, so ask a moderator to grant ${missing.length > 1 ? 'them' : 'it'}.`;
  }
  await interaction.editReply({ content: `${head}\n-# ⚠️ ${note}`, allowedMentions: NO_MENTIONS });
  // The reply keeps saying why when it later points at the answer.
  return { ...throughInteraction(interaction), notice: note };
}

async function placeAskAbout(origin: Extract<TurnOrigin, { kind: 'ask-about' }>, question: CheckedText, ctx: PlaceContext): Promise<Placed> {
  const { interaction, about } = origin;
  const head = headline(nameOf(interaction), question, 'asked about this message');
  const channel = interaction.channel;
  // A DM (with ALLOW_DMS): no thread; the answer comes through the interaction.
  if (!interaction.guildId || !channel) {
    await interaction.editReply({ content: head, allowedMentions: NO_MENTIONS });
    return throughInteraction(interaction);
  }
  try {
    const inThread = channel.isThread();
    const thread = inThread
      ? channel
      : 'threads' in channel
        ? await channel.threads.create({ startMessage: about.messageId, name: threadName(question, cachedMentionNames(interaction.guild)), autoArchiveDuration: 1440 })
        : undefined;
    if (!thread?.isThread()) throw new Error('this kind of channel has no threads');
    if (!inThread) await recordStarter(ctx, thread.id, interaction.user.id, origin.request.logFields);
    const announced = await thread.send({ content: head, allowedMentions: NO_MENTIONS });
    await interaction.editReply({ content: `I am answering in <#${thread.id}>.` });
    return { target: threadTarget(thread), place: { kind: 'thread', threadId: thread.id }, reply: { channelId: announced.channelId, messageId: announced.id } };
  } catch (error) {
    ctx.logger.warn({ err: error, ...origin.request.logFields }, 'Ask about this message: could not open a thread');
    return { unable: `I could not open a thread on that message: ${error instanceof Error ? error.message : String(error)}. Nothing was asked.` };
  }
}

/** The thread is the asker's for good: `/reset` goes by this, whoever speaks first after one. */
async function recordStarter(ctx: PlaceContext, threadId: string, userId: string, logFields: Record<string, string | undefined>): Promise<void> {
  await ctx.conversations.setStarter(threadId, userId).catch((error) => ctx.logger.warn({ err: error, ...logFields, threadId }, "could not record the thread's starter"));
}

