/**
 * The scheduler: at each tick it reads the schedules of the guilds this process holds (one round trip),
 * finds the occurrences that came due since it last looked, claims each in the shared storage (only one
 * process wins an occurrence, across shards and restarts) and launches the winners' runs. Between ticks
 * it sleeps until the next occurrence it knows of, or a minute at most, so a schedule changed by another
 * process is seen soon. The clock is injected: tests and the bench move it and call `tick()`, and
 * nothing here ever really waits.
 *
 * Missed occurrences: of those that fell since the last look (the bot was down, or the clock jumped),
 * only the newest counts. It runs if it is at most the grace period late; otherwise it is claimed as
 * skipped. Either way the ones before it are not run, and the next run is told how many were skipped.
 * A clock that jumps back finds nothing due (the cursor only moves forward, and the claims refuse an
 * occurrence at or before one already claimed).
 *
 * A claim to run holds a lease until the run settles it (occurrence-claims.ts): just before the run's
 * first model call (`begin`), or when the occurrence ends without one. An occurrence found claimed but
 * unsettled is looked at again when its lease ends: if its claimer died before the run began, this
 * process takes it over and runs it (or, now too late, skips it), once.
 */
import { randomUUID } from 'node:crypto';
import { SKIPPED_COUNT_CAP } from '../text/schedule-text.js';
import type { Logger } from '../../logger.js';
import { recurrence } from '../../schedules/index.js';
import type { OccurrenceClaims, Schedule, ScheduleStore } from '../../state/index.js';
import type { SchedulerClock } from './scheduler-clock.js';

export { systemClock, type SchedulerClock } from './scheduler-clock.js';

/** An occurrence this process won, to run now. */
export interface DueOccurrence {
  schedule: Schedule;
  atMs: number;
  /** Occurrences since the schedule's last run that were not made (missed for longer than the grace period), up to SKIPPED_COUNT_CAP. */
  skipped: number;
  /** The latest of those, when there were any. */
  lastSkippedMs?: number;
  /**
   * Call just before the run's first model call: true when the run may go on (its claim is settled),
   * false when it must not (another process took the occurrence over after this claim's lease ended, or
   * the storage could not say). Once.
   */
  begin(): Promise<boolean>;
}

export interface SchedulerDeps {
  store: Pick<ScheduleStore, 'listMany'>;
  claims: Pick<OccurrenceClaims, 'claim' | 'settle'>;
  clock: SchedulerClock;
  /** The guilds this process holds (its shard's): only their schedules run here. */
  heldGuilds(): readonly string[];
  /** How late a missed occurrence may still run (SCHEDULE_GRACE_MINUTES). */
  graceMs: number;
  /** Run an occurrence this process won; the scheduler does not wait for it. */
  launch(due: DueOccurrence): Promise<unknown>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Longest sleep between two reads of the schedules. Default a minute. */
  refreshMs?: number;
}

/** What one tick did (logged, and read by tests and the bench). */
export interface TickReport {
  atMs: number;
  /** Active schedules of held guilds. */
  schedules: number;
  /** Occurrences this process claimed: to run, or as skipped. */
  claimed: Array<{ schedule: string; atMs: number; mode: 'run' | 'skip' }>;
  /** Occurrences another process (or an earlier life of this one) had claimed already. */
  taken: number;
  /** The schedules could not be read (storage down): nothing was claimed; the next wake tries again. */
  failed?: boolean;
}

export interface Scheduler {
  /** Tick once now (the occurrences missed while the bot was down), then keep ticking. */
  start(): Promise<TickReport>;
  /** Look now; ticks never overlap (a second call waits for the first), and never reject. */
  tick(): Promise<TickReport>;
  /** A guild's schedules changed here: look again at once rather than at the next wake. */
  changed(): void;
  /** Settles when every run launched so far has ended. */
  idle(): Promise<void>;
  /** No more ticks. Runs in flight are the bot's to stop. */
  stop(): void;
}

/** Where the scheduler is with one schedule: the time it has looked up to, and its next occurrence after that. */
interface Cursor {
  signature: string;
  cursor: number;
  next: number | undefined;
}

/** Skipped runs are counted up to this many. */

/** Claims in flight at once in one tick (a thousand schedules on "09:00" do not open a thousand requests). */
const CLAIM_CONCURRENCY = 16;

/**
 * How long a claim to run may go unsettled before another claim takes it over: far longer than the
 * checks against Discord and the opening of a thread take, short against the grace period, so an
 * occurrence whose claimer died still runs within a few minutes of its time.
 */
export const CLAIM_LEASE_MS = 2 * 60_000;

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const cursors = new Map<string, Cursor>();
  const launched = new Set<Promise<unknown>>();
  const refreshMs = deps.refreshMs ?? 60_000;
  let last: Promise<TickReport> | undefined;
  let cancelWake: (() => void) | undefined;
  let running = false;

  async function look(): Promise<TickReport> {
    const now = deps.clock.now();
    const report: TickReport = { atMs: now, schedules: 0, claimed: [], taken: 0 };
    const byGuild = await deps.store.listMany(deps.heldGuilds());
    const due: Array<() => Promise<void>> = [];
    const seen = new Set<string>();
    for (const schedule of [...byGuild.values()].flat()) {
      if (schedule.paused) continue;
      report.schedules++;
      const key = `${schedule.guildId}:${schedule.id}`;
      seen.add(key);
      const signature = `${schedule.cron}|${schedule.timeZone}|${schedule.activeSince}`;
      let state = cursors.get(key);
      // New here, or resumed (its activeSince moved): occurrences count from its activeSince.
      if (!state || state.signature !== signature) cursors.set(key, (state = { signature, cursor: schedule.activeSince, next: undefined }));
      if (state.next !== undefined && now < state.next) continue;
      const runs = recurrence(schedule.cron, schedule.timeZone);
      const at = runs.latest(now);
      const from = state.cursor;
      state.cursor = Math.max(state.cursor, now);
      state.next = runs.next(Math.max(now, state.cursor));
      if (at === undefined || at <= from) continue;
      const mode = now - at <= deps.graceMs ? 'run' : 'skip';
      due.push(async () => {
        const token = randomUUID();
        let claim;
        try {
          claim = await deps.claims.claim(key, at, mode, { token, endsMs: now + CLAIM_LEASE_MS, nowMs: now });
        } catch (error) {
          // Not claimed: look at it again next time (it still runs if it is within the grace period then).
          Object.assign(state, { cursor: from, next: at });
          deps.logger.error({ err: error, guildId: schedule.guildId, schedule: schedule.id }, 'could not claim a scheduled occurrence; trying again at the next tick');
          return;
        }
        if (!claim.won) {
          report.taken++;
          // Claimed, not yet begun: looked at again once the lease ends, in case its claimer died.
          if (claim.leaseEndsMs !== undefined) Object.assign(state, { cursor: from, next: claim.leaseEndsMs + 1 });
          return;
        }
        report.claimed.push({ schedule: key, atMs: at, mode });
        if (mode === 'skip') {
          deps.logger.warn({ guildId: schedule.guildId, schedule: schedule.id, occurrence: new Date(at).toISOString() }, 'a scheduled run was missed for longer than the grace period: skipped');
          return;
        }
        const since = Math.max(claim.lastRunMs ?? schedule.activeSince, schedule.activeSince);
        // Counted up to a cap: after a long outage the note says "100 or more", and counting stays cheap.
        const skipped = runs.countBetween(since, at, SKIPPED_COUNT_CAP);
        const lastSkippedMs = skipped > 0 ? runs.latest(at - 1) : undefined;
        const lease = settler(key, at, token, schedule);
        const run = deps.launch({ schedule, atMs: at, skipped, ...(lastSkippedMs !== undefined ? { lastSkippedMs } : {}), begin: lease.begin })
          .catch((error) => deps.logger.error({ err: error, guildId: schedule.guildId, schedule: schedule.id }, 'a scheduled run failed'))
          .finally(lease.end);
        launched.add(run);
        void run.finally(() => launched.delete(run));
      });
    }
    for (const key of cursors.keys()) if (!seen.has(key)) cursors.delete(key);
    await inBatches(due, CLAIM_CONCURRENCY);
    return report;
  }

  /**
   * The settling of one won claim: `begin` just before the run's model call; `end` when the run is over,
   * which settles a claim whose occurrence ended without beginning (checks failed, a limit refused it),
   * so it is not taken over and tried again.
   */
  function settler(key: string, atMs: number, token: string, schedule: Schedule) {
    const fields = { guildId: schedule.guildId, schedule: schedule.id, occurrence: new Date(atMs).toISOString() };
    let decided: Promise<boolean> | undefined;
    const settle = () =>
      (decided ??= deps.claims.settle(key, atMs, token).then(
        (settled) => {
          if (!settled) deps.logger.warn(fields, 'a scheduled run was not made here: another process took its occurrence over after this claim\'s lease ended');
          return settled;
        },
        (error) => {
          deps.logger.error({ err: error, ...fields }, 'could not settle the claim of a scheduled run, so it is not made here (an occurrence never runs twice)');
          return false;
        },
      ));
    return { begin: settle, end: async () => void (await settle()) };
  }

  function wakeLater(): void {
    cancelWake?.();
    if (!running) return;
    const now = deps.clock.now();
    let at = now + refreshMs;
    for (const state of cursors.values()) if (state.next !== undefined && state.next < at) at = state.next;
    cancelWake = deps.clock.at(Math.max(at, now + 50), () => void tick());
  }

  function tick(): Promise<TickReport> {
    const next = (last ?? Promise.resolve()).then(async (): Promise<TickReport> => {
      try {
        const report = await look();
        if (report.claimed.length) deps.logger.info({ claimed: report.claimed.length, taken: report.taken }, 'scheduler claimed occurrences');
        return report;
      } catch (error) {
        deps.logger.error({ err: error }, 'the scheduler could not read the schedules; it tries again at its next wake');
        return { atMs: deps.clock.now(), schedules: 0, claimed: [], taken: 0, failed: true };
      } finally {
        wakeLater();
      }
    });
    last = next;
    return next;
  }

  return {
    start() {
      running = true;
      return tick();
    },
    tick,
    changed: () => void (running && tick()),
    async idle() {
      while (launched.size) await Promise.allSettled([...launched]);
    },
    stop() {
      running = false;
      cancelWake?.();
    },
  };
}

async function inBatches(jobs: Array<() => Promise<void>>, size: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(size, jobs.length) }, worker));
}
