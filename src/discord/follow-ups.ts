/**
 * Follow-ups in a bot thread. With the Message Content intent any message there continues the
 * conversation; without it Discord only shows the bot messages that mention it, so those do.
 * Messages that arrive during a run wait in the thread's queue and are answered in order.
 */
import type { Message } from 'discord.js';
import { displayNameOf, scopeOf } from './interaction-info.js';
import type { Turns } from './turns.js';
import { NO_MENTIONS, threadTarget } from './turn-target.js';

/** The text of a follow-up addressed to the bot, or undefined when the message is not one. */
export function followUpText(message: Message, botId: string, messageContent: boolean): string | undefined {
  if (message.author.bot || message.webhookId || !message.channel.isThread()) return undefined;
  if (message.channel.ownerId !== botId) return undefined;
  const mentioned = message.mentions.users.has(botId);
  if (!messageContent && !mentioned) return undefined;
  const text = message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
  return text || undefined;
}

/** Handle one message: a follow-up starts a turn in its thread; anything else is ignored. */
export async function handleFollowUp(message: Message, turns: Turns, messageContent: boolean): Promise<void> {
  const botId = message.client.user?.id;
  const thread = message.channel;
  if (!botId || !thread.isThread() || thread.locked) return;
  const text = followUpText(message, botId, messageContent);
  if (text === undefined) return;
  const logFields = { guildId: message.guildId ?? undefined, threadId: thread.id, messageId: message.id, userId: message.author.id };
  const admission = await turns.admit({
    scope: scopeOf(message, message.member),
    author: { id: message.author.id, name: displayNameOf(message.member, message.author) },
    text,
    logFields,
  });
  // Refused, or the thread too busy to take it: the person is told why, under their message.
  const notice = admission.ok ? (await admission.turn.run(threadTarget(thread))).busy : admission.message;
  if (notice) await message.reply({ content: notice, allowedMentions: NO_MENTIONS }).catch(() => undefined);
}
