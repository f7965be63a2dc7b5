/**
 * The scheduler's clock: what time it is, and a way to be woken later. The system's in production (a
 * timer that never holds the process open); tests and the bench pass one they move by hand, so no test
 * waits for a schedule's time.
 */

export interface SchedulerClock {
  now(): number;
  /** Call `wake` at `atMs` or soon after; returns a cancel. */
  at(atMs: number, wake: () => void): () => void;
}

/** Date.now and setTimeout (unref'd). A timer can fire a little early or late; the scheduler looks at the time it finds when it wakes. */
export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  at(atMs, wake) {
    const timer = setTimeout(wake, Math.max(0, atMs - Date.now()));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
