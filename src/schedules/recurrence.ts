/**
 * When a schedule's occurrences fall, from its cron pattern and IANA time zone, computed by croner
 * (its daylight-saving handling: a daily 09:00 stays 09:00 local on both sides of a change; a time
 * that does not exist on a spring-forward day runs at the first minute after the gap, and a time that
 * occurs twice on a fall-back day runs once). Croner is only asked for dates here: it never starts a
 * timer of its own, so the scheduler's injected clock is the only clock.
 */
import { Cron } from 'croner';

/** The occurrences of one pattern in one time zone, in epoch milliseconds. */
export interface Recurrence {
  readonly cron: string;
  readonly timeZone: string;
  /** The first occurrence strictly after `afterMs`, or undefined if there is none (a 31 February). */
  next(afterMs: number): number | undefined;
  /** The next `count` occurrences strictly after `afterMs`. */
  nextRuns(count: number, afterMs: number): number[];
  /** The latest occurrence at or before `atMs`, or undefined. */
  latest(atMs: number): number | undefined;
  /** How many occurrences fall strictly between `fromMs` and `toMs`, counting at most `max`. */
  countBetween(fromMs: number, toMs: number, max?: number): number;
}

/**
 * The shortest gap between consecutive occurrences over the next `sample` of them from `fromMs`: a
 * pattern like `0,5 9 * * *` is every day but twice five minutes apart, and that is what a minimum
 * interval must see.
 */
export function shortestGapMs(recurrence: Recurrence, fromMs: number, sample = 500): number | undefined {
  const runs = recurrence.nextRuns(sample, fromMs);
  let shortest: number | undefined;
  for (let i = 1; i < runs.length; i++) {
    const gap = runs[i]! - runs[i - 1]!;
    if (shortest === undefined || gap < shortest) shortest = gap;
  }
  return shortest;
}

/** Parsed patterns are shared: a thousand schedules on "every weekday at 09:00" in one zone are one Cron. */
const cache = new Map<string, Recurrence>();
const CACHE_LIMIT = 5_000;

/** The recurrence of a 5-field cron pattern in `timeZone`. Throws croner's error for a bad pattern. */
export function recurrence(cron: string, timeZone: string): Recurrence {
  const key = `${timeZone} ${cron}`;
  const known = cache.get(key);
  if (known) return known;
  const job = new Cron(cron, { timezone: timeZone, mode: '5-part', paused: true });
  const made: Recurrence = {
    cron,
    timeZone,
    next: (afterMs) => job.nextRun(new Date(afterMs))?.getTime(),
    nextRuns: (count, afterMs) => job.nextRuns(count, new Date(afterMs)).map((d) => d.getTime()),
    // Croner's previous runs are strictly before the reference: one millisecond on includes `atMs` itself.
    latest: (atMs) => job.previousRuns(1, new Date(atMs + 1))[0]?.getTime(),
    countBetween(fromMs, toMs, max = 1_000) {
      let count = 0;
      let at = job.nextRun(new Date(fromMs));
      while (at && at.getTime() < toMs && count < max) {
        count++;
        at = job.nextRun(at);
      }
      return count;
    },
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, made);
  return made;
}
