/**
 * What a message says to the bot: its text with the bot's mention taken out (the member's other words,
 * their other mentions and their files kept), and its files as the attachment reader takes them. A
 * message that is only files asks about them ("what is this?" is often said by the picture itself).
 */
import type { Message } from 'discord.js';
import type { AttachmentRef } from '../files/attachments.js';

/** The question a message asks the bot, or undefined when it says nothing (a bare mention). */
export function questionText(message: Pick<Message, 'content' | 'attachments'>, botId: string): string | undefined {
  const text = message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
  if (text) return text;
  const files = message.attachments.size;
  return files > 0 ? `(sent ${files === 1 ? 'a file' : `${files} files`} without a message)` : undefined;
}

/** The files of a message, as the attachment reader takes them. */
export function attachmentsOf(message: Pick<Message, 'attachments'>): AttachmentRef[] {
  return [...message.attachments.values()].map((a) => ({ name: a.name, url: a.url, contentType: a.contentType, size: a.size }));
}

/** Put under a follow-up when a turn takes it: "seen, being answered". */
export const TAKEN_REACTION = '👀';
