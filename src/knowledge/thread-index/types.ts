/**
 * Past-thread search: the server's earlier conversations, indexed as they are saved, searched by their
 * words in the knowledge index's database (SQLite FTS5 or PostgreSQL text search). Every search names
 * the server, and a thread is found only by those who may view its channel now.
 */
import type { ThreadExchange } from '../../storage/thread-store.js';
import type { KnowledgeKind } from '../types.js';

export type { ThreadExchange } from '../../storage/thread-store.js';

/** A thread that matched, with its best excerpt. */
export interface ThreadHit {
  threadId: string;
  channelId: string;
  title: string;
  link: string;
  /** A short window of the matching exchange around the words (untrusted text, cleaned). */
  excerpt: string;
  /** When the thread last had an exchange. */
  updatedAt: Date;
  /** Higher is better; comparable only within one search. */
  score: number;
}

export interface ThreadSearchOptions {
  /** Threads to return: default 5, at most 20. */
  limit?: number;
  /** Longest excerpt in characters: default 300. */
  excerptChars?: number;
  /** Whether the ones searching may view a channel now; absent: every thread of the server. */
  canView?: (channelId: string) => boolean | Promise<boolean>;
}

/** The thread index. Every method throws StorageError when the database fails. */
export interface ThreadIndex {
  readonly kind: KnowledgeKind;
  readonly where: string;
  /** Index an exchange (a thread idle past the conversation TTL starts afresh). */
  add(exchange: ThreadExchange): Promise<void>;
  /** Remove a thread (`/reset`). */
  forget(threadId: string): Promise<void>;
  /** Matching threads of the server, best first: any text is accepted and none of it is query syntax. */
  search(guildId: string, query: string, options?: ThreadSearchOptions): Promise<ThreadHit[]>;
  /** Whether the server has any indexed thread (for offering the tool): one indexed lookup. */
  hasThreads(guildId: string): Promise<boolean>;
  close(): Promise<void>;
}
