/**
 * Whether a collection has documents, remembered briefly. The engine asks which tools a run may use
 * before every step, and `search_knowledge` is offered only where the server has documents, so the
 * answer must cost nothing per step: it is cached per collection for `ttlMs`, forgotten at once when
 * this process adds or removes a document, and concurrent misses share one lookup. The TTL only matters
 * for changes made by another process (`npm run kb` beside a running bot).
 */
import type { KnowledgeBase } from './types.js';

/** The cached "has documents" answer per collection. */
export interface DocumentPresence {
  /** Whether the collection has a document; rejects when the database cannot be read. */
  has(collection: string): Promise<boolean>;
  /** Forget what is known about the collection (a document was added or removed). */
  forget(collection: string): void;
}

export interface DocumentPresenceOptions {
  /** How long an answer is trusted (default 30 s). */
  ttlMs?: number;
  clock?: () => number;
  /** Most collections remembered; the oldest answers go first past it (default 10,000). */
  maxEntries?: number;
}

interface Entry {
  value: boolean;
  at: number;
}

/** Cache `hasDocuments` over `knowledge`. */
export function createDocumentPresence(knowledge: Pick<KnowledgeBase, 'hasDocuments'>, options: DocumentPresenceOptions = {}): DocumentPresence {
  const ttlMs = options.ttlMs ?? 30_000;
  const clock = options.clock ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const known = new Map<string, Entry>();
  const pending = new Map<string, Promise<boolean>>();
  // Bumped by `forget`: a lookup that started before an add or remove must not store its stale answer.
  const generation = new Map<string, number>();

  function lookup(collection: string): Promise<boolean> {
    const startedIn = generation.get(collection) ?? 0;
    const promise = knowledge.hasDocuments(collection).then(
      (value) => {
        if ((generation.get(collection) ?? 0) === startedIn) {
          known.delete(collection);
          known.set(collection, { value, at: clock() });
          if (known.size > maxEntries) known.delete(known.keys().next().value!);
        }
        return value;
      },
    ).finally(() => {
      if (pending.get(collection) === promise) pending.delete(collection);
    });
    pending.set(collection, promise);
    return promise;
  }

  return {
    has(collection) {
      const entry = known.get(collection);
      if (entry && clock() - entry.at < ttlMs) return Promise.resolve(entry.value);
      return pending.get(collection) ?? lookup(collection);
    },
    forget(collection) {
      known.delete(collection);
      pending.delete(collection);
      generation.set(collection, (generation.get(collection) ?? 0) + 1);
    },
  };
}

/** The knowledge base, with every add and remove telling `presence` to forget that collection. */
export function forgettingOnChange(knowledge: KnowledgeBase, presence: Pick<DocumentPresence, 'forget'>): KnowledgeBase {
  return {
    ...knowledge,
    async add(collection, doc, options) {
      try {
        return await knowledge.add(collection, doc, options);
      } finally {
        presence.forget(collection);
      }
    },
    async remove(collection, idOrSource) {
      try {
        return await knowledge.remove(collection, idOrSource);
      } finally {
        presence.forget(collection);
      }
    },
  };
}
