/**
 * Follow-ups in a bot thread. With the Message Content intent any message there continues the
 * conversation; without it Discord only shows the bot messages that mention it, so those do.
 * Messages that arrive during a run wait in the thread's queue and are answered in order.
 */
import type { Client, Message } from 'discord.js';
import type { BotContext } from './context.js';
import { displayNameOf, scopeOf, turnSettings } from './interaction-info.js';
import { runTurn } from './thread-turn.js';
import { NO_MENTIONS, threadTarget } from './turn-target.js';
import { ThreadBusyError } from '../state/index.js';

/** The text of a follow-up addressed to the bot, or undefined when the message is not one. */
export function followUpText(message: Message, botId: string, messageContent: boolean): string | undefined {
  if (message.author.bot || message.webhookId || !message.channel.isThread()) return undefined;
  if (message.channel.ownerId !== botId) return undefined;
  const mentioned = message.mentions.users.has(botId);
  if (!messageContent && !mentioned) return undefined;
  const text = message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
  return text || undefined;
}

export function handleFollowUps(client: Client, ctx: BotContext): (message: Message) => Promise<void> {
  return async (message) => {
    const botId = client.user?.id;
    if (!botId) return;
    const text = followUpText(message, botId, ctx.discord.messageContent);
    const thread = message.channel;
    if (text === undefined || !thread.isThread()) return;
    if (thread.locked) return;
    const scope = scopeOf(message, message.member);
    const name = displayNameOf(message.member, message.author);
    const logFields = { guildId: message.guildId ?? undefined, threadId: thread.id, messageId: message.id, userId: message.author.id };
    try {
      await ctx.queue.run(thread.id, async () => {
        const { display, maxSteps } = await turnSettings(ctx, scope);
        return runTurn(ctx, { target: threadTarget(thread), scope, author: { id: message.author.id, name }, text, display, maxSteps, logFields });
      });
    } catch (error) {
      if (!(error instanceof ThreadBusyError)) throw error;
      await message.reply({ content: error.message, allowedMentions: NO_MENTIONS }).catch(() => undefined);
    }
  };
}
