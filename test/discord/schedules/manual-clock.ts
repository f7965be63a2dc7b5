/**
 * A clock tests move by hand, for the scheduler: `now` is whatever the test set, and wake-ups are only
 * recorded (the test calls `tick()` itself), so no test ever waits for a schedule's time.
 */
import type { SchedulerClock } from '../../../src/discord/schedules/scheduler.js';

export interface ManualClock extends SchedulerClock {
  set(ms: number): void;
  advance(ms: number): void;
  /** When the scheduler last asked to be woken. */
  readonly wakeAt: number | undefined;
}

export function manualClock(startMs: number): ManualClock {
  let now = startMs;
  let wakeAt: number | undefined;
  return {
    now: () => now,
    at(atMs) {
      wakeAt = atMs;
      return () => {
        if (wakeAt === atMs) wakeAt = undefined;
      };
    },
    set: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
    get wakeAt() {
      return wakeAt;
    },
  };
}
