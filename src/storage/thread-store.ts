/**
 * The thread index family (past-thread search): what each backend folder that can hold a full-text
 * index stores and searches. src/knowledge/thread-index/ does the rest once for every backend (the
 * query reduced to words, the TTL, one hit per thread, who may view it).
 */
import { createHash } from 'node:crypto';

/** One exchange of a thread (a turn's questions and its answer), to index. */
export interface ThreadExchange {
  guildId: string;
  /** The channel the thread is in: who may view it decides who finds it. */
  channelId: string;
  threadId: string;
  /** The thread's name; kept from the first exchange indexed. */
  title: string;
  /** Where to read the thread. */
  link: string;
  /** What was said, speakers named (see exchangeText). */
  text: string;
  at: Date;
}

/** The single full-text token that stands for a server, so the index itself filters by server. */
export function guildKey(guildId: string): string {
  return `g${createHash('sha256').update(guildId).digest('hex').slice(0, 24)}`;
}

/** A matching exchange as a database returns it. */
export interface RawThreadHit {
  threadId: string;
  channelId: string;
  title: string;
  link: string;
  body: string;
  updatedAt: number;
  score: number;
}

/** The database side, which each backend folder that can hold a full-text index implements. */
export interface ThreadStore {
  /** The backend's kind, as its folder names it. */
  readonly kind: string;
  readonly where: string;
  /** Index one exchange; threads idle since before `cutoff` (epoch ms) lose their old exchanges first. */
  add(exchange: ThreadExchange, cutoff: number | undefined): Promise<void>;
  forget(threadId: string): Promise<void>;
  /** Matching exchanges of the server in threads updated since `cutoff`, best first. */
  search(guildId: string, terms: string[], limit: number, cutoff: number | undefined): Promise<RawThreadHit[]>;
  hasThreads(guildId: string, cutoff: number | undefined): Promise<boolean>;
  close(): Promise<void>;
}
