/**
 * Posting the answer: its own message (or a few), split at 2,000 characters without breaking code
 * fences; an answer longer than a few messages goes as a Markdown file with its start shown inline.
 */
import { AttachmentBuilder, type Message } from 'discord.js';
import { splitMessage } from './split-message.js';
import type { TurnTarget } from './turn-target.js';

/** More chunks than this and the answer is sent as a file instead. */
export const MAX_ANSWER_MESSAGES = 3;

/** Send the formatted answer; returns the first message (the one to link to). */
export async function postAnswer(target: TurnTarget, formatted: string): Promise<Message> {
  const chunks = splitMessage(formatted);
  if (chunks.length <= MAX_ANSWER_MESSAGES) {
    let first: Message | undefined;
    for (const chunk of chunks) {
      const sent = await target.send({ content: chunk });
      first ??= sent;
    }
    return first!;
  }
  const preview = splitMessage(formatted, 1500)[0]!;
  const file = new AttachmentBuilder(Buffer.from(formatted, 'utf8'), { name: 'answer.md', description: 'The full answer' });
  return target.send({ content: `${preview}\n\n-# The answer is long (${formatted.length.toLocaleString('en-US')} characters): the full text is in the attached file.`, files: [file] });
}
