/**
 * Exactly once: each occurrence of a schedule is claimed in the shared storage before it runs, and only
 * one claim wins, across processes (shards, a rolling deploy) and restarts. A claim is a high-water
 * mark per schedule: claiming occurrence T succeeds only if no occurrence at or after T was claimed
 * before, and moves the mark to T in the same atomic operation (a single upsert on SQLite and
 * PostgreSQL, a Lua script on Redis). So a second process, a restarted one, or a clock that jumps back
 * can never run T twice, nor run an older occurrence after a newer one. An occurrence can also be
 * claimed as skipped (it was missed for longer than the grace period): the mark moves, the last run
 * does not, and the next run learns how long it has been since the last one that ran.
 */

/** A claim's outcome: won (with when the schedule last really ran before it), or taken already. */
export type ClaimOutcome = { won: true; lastRunMs?: number } | { won: false };

/** Where a schedule stands: the last occurrence claimed, and the last one run. */
export interface OccurrenceMark {
  lastMs: number;
  lastRunMs?: number;
}

export interface OccurrenceClaims {
  /**
   * Claim occurrence `atMs` of `schedule` (a key unique across guilds) to run it (`run`) or to record
   * that it was skipped (`skip`). Won by exactly one caller; lost when it or a later one was claimed.
   */
  claim(schedule: string, atMs: number, mode: 'run' | 'skip'): Promise<ClaimOutcome>;
  /** The marks of these schedules (those never claimed are left out). */
  marks(schedules: readonly string[]): Promise<Map<string, OccurrenceMark>>;
  /** Forget a removed schedule's mark. */
  forget(schedule: string): Promise<void>;
  close(): Promise<void>;
}

/** Claims in process memory (tests, the terminal runner): every call's work is synchronous. */
export function memoryClaims(): OccurrenceClaims {
  const marks = new Map<string, OccurrenceMark>();
  return {
    async claim(schedule, atMs, mode) {
      const mark = marks.get(schedule);
      if (mark && mark.lastMs >= atMs) return { won: false };
      marks.set(schedule, { lastMs: atMs, lastRunMs: mode === 'run' ? atMs : mark?.lastRunMs });
      return { won: true, ...(mark?.lastRunMs !== undefined ? { lastRunMs: mark.lastRunMs } : {}) };
    },
    async marks(schedules) {
      return new Map(schedules.flatMap((s) => (marks.has(s) ? [[s, { ...marks.get(s)! }] as const] : [])));
    },
    async forget(schedule) {
      marks.delete(schedule);
    },
    async close() {},
  };
}
