/**
 * Ends a streamed reply that has gone silent. A whole-reply timeout cannot tell a slow model that
 * keeps writing from a dead one; this can: every byte that arrives moves the silence's start, so only
 * silence trips it. The run's deadline is a fixed end that no activity extends.
 *
 * One timer serves both, and a byte only notes the time: the timer, when it fires, looks at how long it
 * has really been quiet and sets itself again for the rest. A reply of many small chunks then costs one
 * timer, not a timer reset per chunk. Times are monotonic (`performance.now()`), so a wall clock that
 * steps forward mid-reply is not taken for silence.
 */
/** Silence (`idle`) or the run's time limit (`deadline`). */
export type WatchdogReason = 'idle' | 'deadline';

/** The silence (reset by `touch()`) and the deadline around one reply, on one timer. */
export class IdleWatchdog {
  private timer: NodeJS.Timeout | undefined;
  /** When the last bytes arrived (monotonic ms). */
  private lastBytes = performance.now();
  /** The run's deadline on the same monotonic clock. */
  private readonly deadlineAt: number;
  /** Why the watchdog fired, once it has. */
  fired?: WatchdogReason;

  constructor(
    readonly idleMs: number,
    deadlineAt: number | undefined,
    private readonly onFire: (reason: WatchdogReason) => void,
  ) {
    // The deadline comes as epoch ms (the run's end): moved onto the monotonic clock once, here.
    this.deadlineAt = deadlineAt !== undefined && Number.isFinite(deadlineAt) ? this.lastBytes + (deadlineAt - Date.now()) : Infinity;
    this.arm(this.lastBytes);
  }

  /** Bytes arrived: the silence starts again from now. */
  touch(): void {
    this.lastBytes = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Wake at whichever comes first, the end of the silence as it stands or the deadline. */
  private arm(now: number): void {
    const wait = Math.min(this.lastBytes + this.idleMs, this.deadlineAt) - now;
    this.timer = setTimeout(() => this.check(), Math.max(0, wait));
  }

  private check(): void {
    const now = performance.now();
    if (now >= this.deadlineAt) return this.fire('deadline');
    if (now - this.lastBytes >= this.idleMs) return this.fire('idle');
    this.arm(now); // bytes came meanwhile: wait for the rest of the silence
  }

  private fire(reason: WatchdogReason): void {
    this.fired = reason;
    this.stop();
    this.onFire(reason);
  }
}
