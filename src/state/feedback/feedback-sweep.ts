/**
 * Where the feedback store keeps things, and its daily sweep. Keys: an answer's record (a one-entry
 * log), the guild's answers by day, a thread's answers, a member's votes (each an append-only log of
 * ids), and a guild's day marks (its first day, and the last day swept). The sweep removes the records
 * of the days wholly past the conversation TTL, so an answer nobody reads again does not stay on disk
 * (on Redis the keys expire by themselves; elsewhere this is what removes them).
 */
import type { Backend } from '../../storage/registry.js';
import { guarded } from '../../storage/storage-failure.js';
import { checkId } from '../conversation-store.js';

export const DAY_MS = 86_400_000;

/** The UTC day of `ms`, as `YYYY-MM-DD` (the day index's key). */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every key of the feedback store under `namespace`; each id is checked before it becomes part of a key. */
export function feedbackKeys(namespace: string) {
  return {
    record: (guildId: string, id: string) => `${namespace}:fb:${checkId('guild', guildId)}:${checkId('answer', id)}`,
    day: (guildId: string, day: string) => `${namespace}:fb-day:${checkId('guild', guildId)}:${day}`,
    thread: (threadId: string) => `${namespace}:fb-thread:${checkId('thread', threadId)}`,
    member: (guildId: string, userId: string) => `${namespace}:fb-member:${checkId('guild', guildId)}:${checkId('user', userId)}`,
    days: (guildId: string) => `${namespace}:fb-days:${checkId('guild', guildId)}`,
  };
}

export type FeedbackKeys = ReturnType<typeof feedbackKeys>;

/**
 * A guild's sweep, run on its answers: once a day per guild in this process, it notes the guild's first
 * day and, with a TTL, removes the records of every day not swept yet that is wholly past it.
 */
export function dailySweep(options: { backend: Backend; keys: FeedbackKeys; ttlMs?: number; now: () => Date }): (guildId: string) => Promise<void> {
  const { backend, keys, ttlMs, now } = options;
  const call = <T>(action: string, op: () => Promise<T>) => guarded(backend.kind, backend.where, `feedback ${action}`, op);
  const swept = new Map<string, string>();
  const next = (day: string) => dayOf(Date.parse(day) + DAY_MS);
  return async (guildId) => {
    const today = dayOf(now().getTime());
    if (swept.get(guildId) === today) return;
    swept.set(guildId, today);
    const marks = ((await call('read', () => backend.keyv.get(keys.days(guildId)))) ?? {}) as { first?: string; swept?: string };
    const first = marks.first ?? today;
    let done = marks.swept;
    if (ttlMs !== undefined) {
      // A record of day D expires by the end of D plus the TTL: every day up to `last` is wholly past it.
      const last = dayOf(now().getTime() - ttlMs - DAY_MS);
      for (let day = done ? next(done) : first; day <= last; day = next(day)) {
        const key = keys.day(guildId, day);
        for (const entry of await call('read', () => backend.read(key))) await call('expire', () => backend.remove(keys.record(guildId, entry.raw)));
        await call('expire', () => backend.remove(key));
        done = day;
      }
    }
    if (marks.first !== first || marks.swept !== done) await call('write', () => backend.keyv.set(keys.days(guildId), { first, ...(done ? { swept: done } : {}) }));
  };
}
