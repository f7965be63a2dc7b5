/**
 * Follow-ups in a bot thread. With the Message Content intent any message there continues the
 * conversation; without it Discord only shows the bot messages that mention it, so those do.
 * Files attached to the message come with it. Each is an origin of the turn pipeline: messages that
 * arrive during a run wait and are answered together by the thread's next turn
 * (turn/follow-up-batches.ts); each gets 👀 when a turn takes it.
 */
import type { Message } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { AttachmentRef } from '../files/attachments.js';
import { displayNameOf, scopeOf } from '../interaction-info.js';
import { threadProblem } from '../posting/preflight.js';
import type { Turns } from '../turn/pipeline.js';
import { NO_MENTIONS } from '../posting/mention-words.js';
import { threadTarget } from '../posting/target.js';

/** The text of a follow-up addressed to the bot, or undefined when the message is not one. */
export function followUpText(message: Message, botId: string, messageContent: boolean): string | undefined {
  if (message.author.bot || message.webhookId || !message.channel.isThread()) return undefined;
  if (message.channel.ownerId !== botId) return undefined;
  const mentioned = message.mentions.users.has(botId);
  if (!messageContent && !mentioned) return undefined;
  const text = message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
  if (text) return text;
  // Files alone are a message too ("what is this?" is often said by the picture itself).
  const files = message.attachments.size;
  return files > 0 ? `(sent ${files === 1 ? 'a file' : `${files} files`} without a message)` : undefined;
}

/** The files of a message, as the attachment reader takes them. */
export function attachmentsOf(message: Pick<Message, 'attachments'>): AttachmentRef[] {
  return [...message.attachments.values()].map((a) => ({ name: a.name, url: a.url, contentType: a.contentType, size: a.size }));
}

/**
 * Handle one message: a follow-up joins its thread's next turn; anything else is ignored. Resolves once
 * the turn that answers it has ended (the bot does not wait for it).
 */
export async function handleFollowUp(message: Message, turns: Turns, messageContent: boolean, logger?: Logger): Promise<void> {
  const botId = message.client.user?.id;
  const thread = message.channel;
  if (!botId || !thread.isThread() || thread.locked) return;
  const text = followUpText(message, botId, messageContent);
  if (text === undefined) return;
  const logFields = { guildId: message.guildId ?? undefined, threadId: thread.id, messageId: message.id, userId: message.author.id };
  // Before any model call (and before counting the request): the answer must be postable here.
  const problem = threadProblem(thread);
  if (problem) {
    logger?.warn({ ...logFields, problem }, 'follow-up not answered: the bot cannot post in this thread (no model call made)');
    return;
  }
  const scope = scopeOf(message, message.member);
  const tell = (content: string) => message.reply({ content, allowedMentions: NO_MENTIONS }).then(() => undefined, () => undefined);
  const input = turns.checkInput(scope, text);
  if (!input.ok) return tell(input.message);
  await turns.start({
    kind: 'follow-up',
    thread: threadTarget(thread),
    request: {
      scope,
      author: { id: message.author.id, name: displayNameOf(message.member, message.author) },
      text: input.text,
      logFields,
      attachments: attachmentsOf(message),
      messageId: message.id,
    },
    // Not awaited by the turn: a reaction must never hold up the answer (and needs Add Reactions).
    taken: () => void message.react(TAKEN_REACTION).catch(() => undefined),
    tell,
  });
}

/** Put under a follow-up when a turn takes it: "seen, being answered". */
export const TAKEN_REACTION = '👀';
