/**
 * Saving a turn's exchange to the thread's memory: the people's messages, then the run's messages (tool
 * calls with their results, the answer), in one append, before the answer is posted, so the memory holds
 * the turn even when Discord refuses the answer. A failure is logged and becomes a line under the answer.
 */
import type { AgentResult } from '../../agent/types.js';
import { describeError, StorageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ConversationStore, NewMessage } from '../../state/index.js';

/**
 * Save the exchange; '' when saved (or nothing to save into), else the note to show under the answer.
 * A saved exchange is then given to `index` (past-thread search), which never throws.
 */
export async function saveExchange(conversations: Pick<ConversationStore, 'append'>, threadId: string | undefined, asked: readonly NewMessage[], result: AgentResult, logger: Logger, index?: (messages: readonly NewMessage[]) => Promise<void>): Promise<string> {
  if (!threadId) return '';
  try {
    await conversations.append(threadId, [...asked, ...result.messages], result.usage);
    await index?.([...asked, ...result.messages]);
    return '';
  } catch (error) {
    logger.error({ err: error, threadId }, 'could not save the conversation');
    return `\n-# ⚠️ I could not save this exchange to memory (${error instanceof StorageError ? error.message : describeError(error)}).`;
  }
}
