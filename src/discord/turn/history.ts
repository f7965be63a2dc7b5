/**
 * What a turn gives the model: the thread's memory, trimmed to its token budget, and the new messages
 * (files read for the model that answers here), with the lines the thread shows about them (files not
 * read, older exchanges left out).
 */
import type { ChatMessage } from '../../agent/types.js';
import { describeError } from '../../errors.js';
import { toModelMessages, trimHistory, type NewMessage, type StoredMessage } from '../../state/index.js';
import type { TurnDeps } from './deps.js';
import { turnInput } from './input.js';
import type { TurnRecord } from './record.js';

export type Loaded = { asked: NewMessage[]; messages: ChatMessage[]; notes: string[] } | { failure: string };

export async function loadHistory(deps: Pick<TurnDeps, 'attachments' | 'memory' | 'now' | 'logger'>, turn: TurnRecord, threadId: string | undefined): Promise<Loaded> {
  // Images go only to a model that takes them: the one that answers here.
  const inputs = await Promise.all(turn.messages.map((m) => turnInput(deps.attachments, m, turn.settings.model)));
  const at = deps.now().getTime();
  const asked: NewMessage[] = inputs.map((input, i) => ({ role: 'user', content: input.content, author: turn.messages[i]!.author, at, ...(turn.messages[i]!.messageId ? { messageId: turn.messages[i]!.messageId } : {}) }));
  let stored: StoredMessage[] = [];
  if (threadId) {
    try {
      stored = (await deps.memory.conversations.load(threadId)).messages;
    } catch (error) {
      // Without the history we must not answer (and later save) as if the thread were new.
      deps.logger.error({ err: error, ...turn.logFields }, 'could not load the conversation');
      return { failure: `❌ I could not read this thread's memory (${describeError(error)}). Nothing was changed; try again in a moment.` };
    }
  }
  const trimmed = trimHistory(toModelMessages([...stored, ...asked.map((m) => ({ ...m, at }))]), {
    budget: deps.memory.historyTokenBudget,
    // Room for the reply and for what the engine adds: its system prompt and the tool schemas.
    reserveForReply: Math.min(2000, Math.floor(deps.memory.historyTokenBudget / 4)),
    counter: deps.memory.tokenCounter,
  });
  const notes = inputs.flatMap((input) => (input.notice ? [input.notice] : []));
  if (trimmed.droppedTurns > 0) {
    notes.push(`-# ℹ️ This thread is long: I am only using its most recent messages (${trimmed.droppedTurns} older exchange${trimmed.droppedTurns === 1 ? '' : 's'} left out).`);
  }
  return { asked, messages: trimmed.messages, notes };
}
