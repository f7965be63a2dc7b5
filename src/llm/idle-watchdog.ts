/**
 * Ends a streamed reply that has gone silent. A whole-reply timeout cannot tell a slow model that
 * keeps writing from a dead one; this can: every byte that arrives resets the idle timer, so only
 * silence trips it. The run's deadline is a second, fixed timer that no activity extends.
 */
/** Silence (`idle`) or the run's time limit (`deadline`). */
export type WatchdogReason = 'idle' | 'deadline';

/** Two timers around one reply: silence, reset by `touch()`, and the deadline. */
export class IdleWatchdog {
  private readonly idle: NodeJS.Timeout;
  private readonly deadline?: NodeJS.Timeout;
  /** Why the watchdog fired, once it has. */
  fired?: WatchdogReason;

  constructor(
    readonly idleMs: number,
    deadlineAt: number | undefined,
    private readonly onFire: (reason: WatchdogReason) => void,
  ) {
    this.idle = setTimeout(() => this.fire('idle'), idleMs);
    if (deadlineAt !== undefined && Number.isFinite(deadlineAt)) {
      this.deadline = setTimeout(() => this.fire('deadline'), Math.max(0, deadlineAt - Date.now()));
    }
  }

  /** Bytes arrived: the silence starts again from now. */
  touch(): void {
    if (!this.fired) this.idle.refresh();
  }

  stop(): void {
    clearTimeout(this.idle);
    if (this.deadline) clearTimeout(this.deadline);
  }

  private fire(reason: WatchdogReason): void {
    if (this.fired) return;
    this.fired = reason;
    this.stop();
    this.onFire(reason);
  }
}
