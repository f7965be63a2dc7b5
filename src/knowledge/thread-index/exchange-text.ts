/**
 * What of an exchange is indexed for past-thread search: what people asked, each line with its speaker,
 * and the bot's answers. Tool calls and their results are left out (a web page read once is not the
 * server's conversation), as are images. Cleaned and capped, since it is shown again in later runs.
 */
import { cleanText } from '../../agent/clean-text.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** The shape of a stored message this needs (a conversation message with its author). */
export interface ExchangeMessage {
  role: string;
  content: unknown;
  author?: { name: string };
  tool_calls?: unknown[];
}

/** Longest part of one message that is indexed, and of one exchange: as much as a quoted reply keeps. */
const { quotedMessage: MESSAGE_CHARS, quotedConversation: EXCHANGE_CHARS } = TEXT_CAPS;

/** The text of an exchange, `name: words` per message, or '' when nothing in it is worth finding. */
export function exchangeText(messages: readonly ExchangeMessage[], botName = 'threadwise'): string {
  const lines: string[] = [];
  for (const message of messages) {
    const text = textOf(message.content);
    if (!text) continue;
    if (message.role === 'user') lines.push(`${message.author?.name ?? 'someone'}: ${text}`);
    else if (message.role === 'assistant' && !message.tool_calls?.length) lines.push(`${botName}: ${text}`);
  }
  return lines.join('\n').slice(0, EXCHANGE_CHARS);
}

function textOf(content: unknown): string {
  const raw = typeof content === 'string'
    ? content
    : Array.isArray(content) ? content.map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '')).join(' ') : '';
  return cleanText(raw).replace(/\s+/g, ' ').trim().slice(0, MESSAGE_CHARS);
}
