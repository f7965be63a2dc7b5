/**
 * A busy team thread: messages that arrive while the thread has a run going wait here and are answered
 * together by the next turn (one run, every message with its speaker), so a thread where three people
 * post twenty notes costs a few runs, not twenty. A message holds no concurrency slot while it waits;
 * the turn that takes it does. Each message is acknowledged when a turn takes it, and settled with the
 * outcome of the turn that answered it (or why none did), so its sender hears of every message that is
 * not answered: nothing is dropped silently.
 */
import type { UsageTicket } from '../../state/index.js';
import type { TurnOutcome } from './outcome.js';
import type { TurnRequest } from './origin.js';

/** One admitted message waiting for its thread's next turn. */
export interface WaitingMessage {
  request: TurnRequest;
  ticket: UsageTicket;
  /** Told when a turn takes the message (a reaction under it). Never throws. */
  taken(): void;
  /** Ends the message's wait: the outcome of the turn that answered it, or why none will. Called once. */
  settle(outcome: TurnOutcome): void;
}

/** How many messages one turn takes, at most. */
export interface BatchLimits {
  /** Messages per turn. */
  maxMessages: number;
  /** Tokens of the messages' text per turn (half the history budget): the rest waits for the next turn. */
  maxTokens: number;
  /** Messages that may wait in one thread; the next is refused with a reply. */
  maxWaiting: number;
}

export const DEFAULT_BATCH_LIMITS: Omit<BatchLimits, 'maxTokens'> = { maxMessages: 20, maxWaiting: 100 };

interface ThreadBatch {
  waiting: WaitingMessage[];
  /** A turn that will take the waiting messages is already in the thread's queue. */
  scheduled: boolean;
}

/** The waiting messages of every thread of this process (a guild lives on one shard). */
export class FollowUpBatches {
  private readonly threads = new Map<string, ThreadBatch>();

  constructor(private readonly limits: BatchLimits) {}

  /**
   * Add a message to its thread's batch. Returns whether the caller must schedule a turn to take it
   * (none is scheduled yet), or a refusal when the thread already has too many waiting.
   */
  add(threadId: string, message: WaitingMessage): { schedule: boolean } | { refused: string } {
    const batch = this.threads.get(threadId) ?? { waiting: [], scheduled: false };
    if (batch.waiting.length >= this.limits.maxWaiting) {
      return { refused: `This thread already has ${batch.waiting.length} messages waiting for an answer. Wait for the bot to answer them, then send yours again.` };
    }
    this.threads.set(threadId, batch);
    batch.waiting.push(message);
    if (batch.scheduled) return { schedule: false };
    batch.scheduled = true;
    return { schedule: true };
  }

  /**
   * Take the messages the next turn answers: in arrival order, up to the count and token caps (always at
   * least one). `more` says whether messages are left, so the caller schedules another turn for them.
   */
  take(threadId: string, countTokens: (text: string) => number): { taken: WaitingMessage[]; more: boolean } {
    const batch = this.threads.get(threadId);
    if (!batch) return { taken: [], more: false };
    let tokens = 0;
    let count = 0;
    for (const message of batch.waiting) {
      if (count >= this.limits.maxMessages) break;
      tokens += countTokens(message.request.text);
      if (count > 0 && tokens > this.limits.maxTokens) break;
      count++;
    }
    const taken = batch.waiting.splice(0, count);
    const more = batch.waiting.length > 0;
    batch.scheduled = more;
    if (!more) this.threads.delete(threadId);
    return { taken, more };
  }

  /** Give up every message waiting in a thread (`/reset`): the caller releases and settles them. */
  drop(threadId: string): WaitingMessage[] {
    const batch = this.threads.get(threadId);
    if (!batch) return [];
    this.threads.delete(threadId);
    return batch.waiting;
  }

  /** Take back one waiting message (its author deleted it): the caller releases and settles it. */
  remove(threadId: string, messageId: string): WaitingMessage | undefined {
    const batch = this.threads.get(threadId);
    const at = batch?.waiting.findIndex((m) => m.request.messageId === messageId) ?? -1;
    if (!batch || at === -1) return undefined;
    const [removed] = batch.waiting.splice(at, 1);
    // A turn already scheduled for the thread finds nothing to take and ends at once.
    if (batch.waiting.length === 0 && !batch.scheduled) this.threads.delete(threadId);
    return removed;
  }

  /** Messages waiting in a thread. */
  waiting(threadId: string): number {
    return this.threads.get(threadId)?.waiting.length ?? 0;
  }
}
