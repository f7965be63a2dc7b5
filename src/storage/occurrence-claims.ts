/**
 * The schedule claims family, which each backend folder implements. Exactly once: each occurrence of a schedule is claimed in the shared storage before it runs, and only
 * one claim wins, across processes (shards, a rolling deploy) and restarts. A claim is a high-water
 * mark per schedule: claiming occurrence T succeeds only if no occurrence at or after T was claimed
 * before, and moves the mark to T in the same atomic operation (a single upsert on SQLite and
 * PostgreSQL, a Lua script on Redis). So a second process, a restarted one, or a clock that jumps back
 * can never run T twice, nor run an older occurrence after a newer one. An occurrence can also be
 * claimed as skipped (it was missed for longer than the grace period): the mark moves, the last run
 * does not, and the next run learns how long it has been since the last one that ran.
 *
 * A claim to run is in two phases. Won, it holds a lease (a token and an end time) until its run is
 * settled: just before the run's first model call, or when the occurrence ends without a run. A process
 * killed between the two (while it checks Discord and opens the thread) leaves the lease to run out,
 * and the occurrence can then be claimed once more, by whichever process looks first. Settling needs the
 * lease's token: a claimer that was taken over (it was slower than its lease) settles nothing and must
 * not run. So an occurrence runs at most once, and a crash before its run no longer loses it.
 */

/** A claim's outcome: won (with when the schedule last really ran before it), or taken already (with when a lease that has not been settled runs out). */
export type ClaimOutcome = { won: true; lastRunMs?: number } | { won: false; leaseEndsMs?: number };

/** Where a schedule stands: the last occurrence claimed, and the last one run. */
export interface OccurrenceMark {
  lastMs: number;
  lastRunMs?: number;
}

/** What a claim to run holds until it is settled: its own token, and when another claim may take it over. */
export interface ClaimLease {
  token: string;
  endsMs: number;
  /** The claimer's clock now: a lease that ended before it can be taken over. */
  nowMs: number;
}

export interface OccurrenceClaims {
  /**
   * Claim occurrence `atMs` of `schedule` (a key unique across guilds) to run it (`run`, holding `lease`
   * until settled) or to record that it was skipped (`skip`). Won by exactly one caller; lost when it or
   * a later one was claimed, unless it was claimed to run and its lease ran out unsettled.
   */
  claim(schedule: string, atMs: number, mode: 'run' | 'skip', lease: ClaimLease): Promise<ClaimOutcome>;
  /** End the lease of a won claim: true when it was still this token's (the run may go on), false when another claim took it over. */
  settle(schedule: string, atMs: number, token: string): Promise<boolean>;
  /** The marks of these schedules (those never claimed are left out). */
  marks(schedules: readonly string[]): Promise<Map<string, OccurrenceMark>>;
  /** Forget a removed schedule's mark. */
  forget(schedule: string): Promise<void>;
  close(): Promise<void>;
}
