/**
 * Messages as questions, wherever people talk: each message the bot receives is read here once and
 * becomes a turn's origin, or nothing.
 *
 * - Never a question: other bots' messages (the bot's own never reach here: bot.ts drops them),
 *   webhooks', system messages; mentions of @everyone, @here or a role (only a mention of the bot
 *   itself, or a reply to it, addresses it).
 * - In a thread the bot opened: a follow-up (any message with the Message Content intent, else those
 *   that mention it).
 * - In a text or announcement channel: a mention opens a thread on that message (`mention`); where the
 *   channel answers `always`, so does every new message.
 * - In a member's thread, a forum post or a voice channel's chat: answered in place, and the place's
 *   later messages that mention the bot (or, answering `always`, any) continue that conversation.
 * - In a DM, with ALLOW_DMS: every message is a turn of one DM conversation.
 *
 * Where the moderators set `off`, nothing is answered. A bare mention gets a hint on how to ask, once
 * an hour per member. Before any model call: the permissions the answer needs (a reply under the
 * message names a missing one), and the messages the question replies to read (reply-chain.ts).
 */
import { ChannelType, PermissionFlagsBits, type Message } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { AnswerMode } from '../../policy/index.js';
import { displayNameOf, scopeOf, NO_MENTIONS } from '../members.js';
import { missingFor, missingPermissionsSentence } from '../posting/permissions.js';
import { channelTarget, threadTarget, type TurnTarget } from '../posting/target.js';
import type { Rules } from '../rules/rules.js';
import type { Turns } from '../turn/pipeline.js';
import type { ConversationStore } from '../../state/index.js';
import { attachmentsOf, questionText, TAKEN_REACTION } from './message-text.js';
import { OnceAnHour } from './once-an-hour.js';
import { replyChain } from './reply-chain.js';

export interface MessageRouterDeps {
  turns: Pick<Turns, 'start' | 'checkInput'> & { conversations: Pick<ConversationStore, 'starter' | 'setStarter'> };
  rules: Pick<Rules, 'at'>;
  runtime: { logger: Logger; now: () => Date; messageContent: boolean; replyChainMax: number };
}

export const MENTION_HINT = '👋 Ask me by writing your question after the mention, like `@threadwise what is 17% of 2,340?`, or use `/ask`.';

/** Shown under a message that was not taken where the bot answers every message: once an hour, no more. */
const QUIET_REACTION = '⏳';

export function messageRouter(deps: MessageRouterDeps) {
  const notes = new OnceAnHour(() => deps.runtime.now().getTime());
  const { logger, messageContent } = deps.runtime;

  return async function route(message: Message): Promise<void> {
    const botId = message.client.user?.id;
    if (!botId) return;
    // Never a question: other bots (two bots mentioning each other must not loop), webhooks, system messages.
    if (message.author.bot || message.webhookId || message.system) return;
    const channel = message.channel;
    const addressed = message.mentions.users.has(botId);
    if (channel.isThread() && channel.ownerId === botId) {
      if (channel.locked) return;
      // The bot's own thread: every message continues it (without Message Content, those that mention it).
      if (addressed || messageContent) await inPlace(message, threadTarget(channel), 'loud');
      return;
    }
    const scope = scopeOf(message, message.member);
    if (!message.inGuild()) {
      // A DM channel can arrive partial (never cached before its first message): fetched whole once.
      const dm = channel.partial ? await channel.fetch().catch(() => undefined) : channel;
      if (dm?.type === ChannelType.DM) await inPlace(message, channelTarget(dm), 'loud');
      return;
    }
    // Only read the place's mode when the message could be a question at all.
    if (!addressed && !messageContent) return;
    const mode: AnswerMode = await deps.rules.at(scope).answers();
    if (mode === 'off') return;
    const always = mode === 'always' && messageContent;
    if (channel.isThread()) {
      // A member's thread or a forum post: a mention, or (answering always) a new post or a message of a
      // conversation the bot already has there, continues it in place.
      const known = addressed ? true : always && (message.id === channel.id || (await deps.turns.conversations.starter(channel.id).catch(() => undefined)) !== undefined);
      if (known) await inPlace(message, threadTarget(channel), addressed ? 'loud' : 'quiet');
      return;
    }
    if (channel.type === ChannelType.GuildVoice) {
      if (addressed || always) await inPlace(message, channelTarget(channel), addressed ? 'loud' : 'quiet');
      return;
    }
    if (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement) {
      if (addressed || always) await newThread(message as Message<true>, addressed ? 'loud' : 'quiet');
    }
  };

  /** What the person is told when their message was not taken: under it, or (quiet) a reaction and a note once an hour. */
  function teller(message: Message, how: 'loud' | 'quiet') {
    return async (content: string) => {
      if (how === 'quiet') {
        await message.react(QUIET_REACTION).catch(() => undefined);
        if (!notes.take(`refused:${message.guildId}:${message.author.id}`)) return;
      }
      await message.reply({ content, allowedMentions: NO_MENTIONS }).catch(() => undefined);
    };
  }

  /** The question a message asks: its text (the mention taken out), files, and what it replies to; or why none. */
  async function questionOf(message: Message, how: 'loud' | 'quiet') {
    const botId = message.client.user!.id;
    const text = questionText(message, botId);
    const tell = teller(message, how);
    if (text === undefined) {
      // A bare mention: how to ask, once an hour (a message that mentions nobody says nothing here).
      if (message.mentions.users.has(botId) && notes.take(`hint:${message.guildId ?? 'dm'}:${message.author.id}`)) {
        await message.reply({ content: MENTION_HINT, allowedMentions: NO_MENTIONS }).catch(() => undefined);
      }
      return undefined;
    }
    const scope = scopeOf(message, message.member);
    const input = deps.turns.checkInput(scope, text);
    if (!input.ok) {
      await tell(input.message);
      return undefined;
    }
    if (message.reference && message.inGuild()) {
      const me = message.guild.members.me;
      const channel = message.channel;
      // Reading the messages replied to needs Read Message History: never a model call that cannot read them.
      if (me && !channel.isDMBased() && !channel.permissionsFor(me).has(PermissionFlagsBits.ReadMessageHistory)) {
        await tell(missingPermissionsSentence(['Read Message History'], 'read the message you replied to'));
        return undefined;
      }
    }
    const chain = await replyChain(message, message.member, deps.runtime.replyChainMax);
    const logFields = { guildId: message.guildId ?? undefined, channelId: message.channelId, messageId: message.id, userId: message.author.id };
    const request = {
      scope,
      author: { id: message.author.id, name: displayNameOf(message.member, message.author) },
      text: input.text,
      logFields,
      attachments: [...attachmentsOf(message), ...chain.attachments],
      messageId: message.id,
      ...(chain.context ? { context: chain.context } : {}),
      ...(chain.notices.length ? { notices: chain.notices } : {}),
    };
    return { request, tell };
  }

  /** Answered where it was said (a thread, a voice channel's chat, a DM), as a conversation of that place. */
  async function inPlace(message: Message, target: TurnTarget, how: 'loud' | 'quiet'): Promise<void> {
    const problem = target.preflight?.();
    if (problem) {
      // Before any model call (and before counting the request): the answer must be postable here.
      logger.warn({ channelId: message.channelId, messageId: message.id, problem }, 'message not answered: the bot cannot post there (no model call made)');
      return;
    }
    const question = await questionOf(message, how);
    if (!question) return;
    // A place the bot did not open is its asker's conversation (for /reset) from the first question on.
    if (target.conversationKey && message.inGuild()) await deps.turns.conversations.setStarter(target.conversationKey, message.author.id).catch(() => undefined);
    await deps.turns.start({
      kind: 'follow-up',
      thread: target,
      request: question.request,
      // Not awaited by the turn: a reaction must never hold up the answer (and needs Add Reactions).
      taken: () => void message.react(TAKEN_REACTION).catch(() => undefined),
      tell: question.tell,
    });
  }

  /** A mention in a channel: a thread on the message, opened once the turn is admitted. */
  async function newThread(message: Message<true>, how: 'loud' | 'quiet'): Promise<void> {
    const me = message.guild.members.me;
    const channel = message.channel;
    const missing = me && !channel.isDMBased() ? missingFor('new thread', channel.permissionsFor(me)) : [];
    if (missing.length > 0) {
      const canReply = me && !channel.isDMBased() && channel.permissionsFor(me).has([PermissionFlagsBits.SendMessages, PermissionFlagsBits.ReadMessageHistory]);
      const sentence = missingPermissionsSentence(missing, 'open a thread to answer you here');
      if (canReply) await message.reply({ content: sentence, allowedMentions: NO_MENTIONS }).catch(() => undefined);
      else logger.warn({ channelId: message.channelId, messageId: message.id, missing }, 'a question by mention was not answered: the bot may not open a thread nor say why there (no model call made)');
      return;
    }
    const question = await questionOf(message, how);
    if (!question) return;
    await deps.turns.start({ kind: 'mention', message, request: question.request, tell: question.tell });
  }
}

