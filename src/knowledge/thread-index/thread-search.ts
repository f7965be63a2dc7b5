/**
 * The thread index over a database's thread store: the query reduced to words (never query syntax),
 * the conversation TTL applied, results grouped one per thread and filtered by who may view their
 * channel now. Kept apart from the SQL so SQLite and PostgreSQL behave the same.
 */
import { queryTerms, snippet } from '../query-terms.js';
import type { ThreadHit, ThreadIndex, ThreadSearchOptions } from './types.js';
import type { ThreadStore } from '../../storage/thread-store.js';

export interface ThreadIndexOptions {
  /** Forget threads idle for longer (CONVERSATION_TTL_DAYS); absent: keep them. */
  ttlMs?: number;
  now?: () => Date;
}

/** The thread index over `store`. */
export function threadIndexOver(store: ThreadStore, options: ThreadIndexOptions = {}): ThreadIndex {
  const now = options.now ?? (() => new Date());
  const cutoff = () => (options.ttlMs ? now().getTime() - options.ttlMs : undefined);
  return {
    kind: store.kind,
    where: store.where,
    add: (exchange) => store.add(exchange, cutoff()),
    forget: (threadId) => store.forget(threadId),
    hasThreads: (guildId) => store.hasThreads(guildId, cutoff()),
    close: () => store.close(),
    async search(guildId, query, searchOptions: ThreadSearchOptions = {}) {
      const terms = queryTerms(query);
      if (terms.length === 0) return [];
      const limit = Math.max(1, Math.min(20, searchOptions.limit ?? 5));
      // Room for exchanges of one thread and for threads the searcher may not see.
      const raw = await store.search(guildId, terms, Math.min(100, limit * 4), cutoff());
      const answers = new Map<string, Promise<boolean>>();
      const visible = (channelId: string) => {
        const canView = searchOptions.canView;
        if (!canView) return Promise.resolve(true);
        let answer = answers.get(channelId);
        if (!answer) answers.set(channelId, (answer = Promise.resolve(canView(channelId)).catch(() => false)));
        return answer;
      };
      const hits: ThreadHit[] = [];
      const seen = new Set<string>();
      for (const hit of raw) {
        if (hits.length >= limit) break;
        if (seen.has(hit.threadId) || !(await visible(hit.channelId))) continue;
        seen.add(hit.threadId);
        hits.push({
          threadId: hit.threadId,
          channelId: hit.channelId,
          title: hit.title,
          link: hit.link,
          excerpt: snippet(hit.body, terms, Math.max(80, searchOptions.excerptChars ?? 300)),
          updatedAt: new Date(hit.updatedAt),
          score: hit.score,
        });
      }
      return hits;
    },
  };
}
