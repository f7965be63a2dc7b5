/**
 * The rules a chat history must follow for OpenAI-compatible servers, and the cuts that are safe to make.
 * An assistant message with tool calls must be followed at once by one tool message per call; a tool
 * message may appear nowhere else. A turn starts at a user message, so dropping whole turns from the
 * front never separates a call from its results.
 */
import type { ChatMessage } from '../../agent/types.js';

/** Leading system messages (kept always) and the rest grouped into turns, oldest first. */
export interface Turns<T extends ChatMessage> {
  pinned: T[];
  turns: T[][];
}

/** Split a history into pinned system messages and turns; messages before the first user message form a turn of their own. */
export function splitTurns<T extends ChatMessage>(messages: readonly T[]): Turns<T> {
  let start = 0;
  while (start < messages.length && messages[start]!.role === 'system') start++;
  const turns: T[][] = [];
  for (let i = start; i < messages.length; i++) {
    const message = messages[i]!;
    const current = turns.at(-1);
    if (!current || message.role === 'user') turns.push([message]);
    else current.push(message);
  }
  return { pinned: messages.slice(0, start), turns };
}

/** The first rule a sequence breaks, or undefined when it is valid. */
export function sequenceProblem(messages: readonly ChatMessage[]): string | undefined {
  let open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) return `message ${i}: tool result ${message.tool_call_id} answers no open call`;
      continue;
    }
    if (open.size > 0) return `message ${i}: calls ${[...open].join(', ')} have no result`;
    open = new Set(message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.id) : []);
  }
  return open.size > 0 ? `calls ${[...open].join(', ')} have no result` : undefined;
}

/**
 * Make a sequence valid with the smallest cuts: tool results that answer no open call are dropped, and
 * calls left without a result are removed from their assistant message (which is dropped if nothing
 * remains). Valid input comes back as the same array. `repaired` counts the messages dropped or changed.
 */
export function repairSequence<T extends ChatMessage>(messages: readonly T[]): { messages: T[]; repaired: number } {
  if (sequenceProblem(messages) === undefined) return { messages: messages as T[], repaired: 0 };
  const out: T[] = [];
  let repaired = 0;
  for (let i = 0; i < messages.length; ) {
    const message = messages[i]!;
    i++;
    if (message.role === 'tool') {
      repaired++;
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls?.length) {
      out.push(message);
      continue;
    }
    const calls = new Set(message.tool_calls.map((c) => c.id));
    const results: T[] = [];
    for (; i < messages.length && messages[i]!.role === 'tool'; i++) {
      const result = messages[i]! as T & { role: 'tool' };
      if (calls.delete(result.tool_call_id)) results.push(result);
      else repaired++;
    }
    if (calls.size === 0) {
      out.push(message, ...results);
      continue;
    }
    repaired++;
    const answered = message.tool_calls.filter((c) => !calls.has(c.id));
    if (answered.length > 0) out.push({ ...message, tool_calls: answered }, ...results);
    else if (message.content) out.push({ ...message, tool_calls: undefined }, ...results);
  }
  return { messages: out, repaired };
}
