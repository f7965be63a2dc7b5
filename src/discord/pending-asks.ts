/**
 * Messages someone chose "Ask about this message" on, kept while they type their question in the
 * modal: the modal's submission carries only its fields, and the message's text is only sure to be
 * readable in the command itself (without the Message Content intent a later fetch sees no text).
 * Bounded in size and time, like the modal; a submission that finds nothing here fetches the message.
 */
import type { AttachmentRef } from './files/attachments.js';

/** The message a question is about, as it was when the command was used. */
export interface AskedAbout {
  channelId: string;
  messageId: string;
  authorName: string;
  content: string;
  url: string;
  attachments: AttachmentRef[];
  /** A thread already started from the message, if any. */
  threadId?: string;
}

export class PendingAsks {
  private readonly entries = new Map<string, { about: AskedAbout; until: number }>();

  constructor(
    private readonly options: { ttlMs?: number; max?: number; now?: () => number } = {},
  ) {}

  /** Keep `about` for the person `userId` until they submit (or the time runs out). */
  put(userId: string, about: AskedAbout): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
    // Oldest first out once full: Map keeps insertion order.
    while (this.entries.size >= (this.options.max ?? 1_000)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyOf(userId, about.messageId), { about, until: now + (this.options.ttlMs ?? 15 * 60_000) });
  }

  /** What `userId` asked about `messageId`, once: it is forgotten as it is taken. */
  take(userId: string, messageId: string): AskedAbout | undefined {
    const key = keyOf(userId, messageId);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry && entry.until > this.now() ? entry.about : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function keyOf(userId: string, messageId: string): string {
  return `${userId}:${messageId}`;
}
