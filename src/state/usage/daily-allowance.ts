/**
 * Daily allowances: "at most N of this a day in this server" for things that cost money outside the
 * model (a paid web search). Each use is a claim in the counter store (as a run's slot is) that expires
 * at the next UTC midnight, so the store's atomic claim makes the count exact across processes and
 * shards, and the day's uses vanish by themselves when the day ends. A use whose work failed can be
 * given back. The claims belong to no process: a restart must not hand the day's uses back.
 */
import { randomUUID } from 'node:crypto';
import type { CounterStore } from '../../storage/usage-store.js';
import { nextUtcMidnight, utcDay } from './days.js';

/** What taking one use answers. */
export type DailyTake =
  | { ok: true; used: number; max: number; resetsAt: Date; /** Give the use back (the work it paid for failed). */ giveBack(): Promise<void> }
  | { ok: false; used: number; max: number; resetsAt: Date };

/**
 * Take one of today's `max` uses of `name` for `guildId` (null: all direct messages together).
 * `max` 0 means no cap: the use is granted and nothing is stored.
 */
export async function takeDailyUse(counters: CounterStore, now: Date, name: string, guildId: string | null, max: number): Promise<DailyTake> {
  const resetsAt = nextUtcMidnight(now);
  if (max <= 0) return { ok: true, used: 0, max: 0, resetsAt, giveBack: async () => {} };
  // No day in the key: today's leases all expire at midnight, and the next day's first take clears them
  // (a key per day would leave each day's rows behind in the SQL stores).
  const scope = `daily:${name}:${guildId === null ? 'dm' : `g${guildId}`}`;
  const id = randomUUID();
  const taken = await counters.claim(
    { id, scope, userId: 'uses', leased: true, estimate: 0, owner: 'daily-allowance', slot: '' },
    { day: utcDay(now), nowMs: now.getTime(), expiresAtMs: resetsAt.getTime(), maxConcurrent: max, memberCap: 0, guildCap: 0 },
  );
  if (!taken.ok) return { ok: false, used: taken.limit === 'concurrentRuns' ? taken.held : max, max, resetsAt };
  return { ok: true, used: taken.held, max, resetsAt, giveBack: () => counters.unclaim(scope, id) };
}
