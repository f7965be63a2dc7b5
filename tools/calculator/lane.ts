/**
 * One place in the calculator pool where a worker runs. The process is replaced whenever it has to die;
 * the lane stays. A call still running at a quarter of its limit will probably be killed, so the lane starts
 * that worker's replacement early (the spare): the kill then leaves no gap in which this lane cannot
 * answer, which matters when a member runs slow expressions back to back.
 */
import { startCalculatorSlot, type Slot } from './slot.js';

export class Lane {
  /** Running a job (the pool's bookkeeping; the lane itself never looks at it). */
  busy = false;
  private current?: Slot;
  private spare?: Slot;
  private readonly stopping = new Set<Promise<number>>();
  private closed = false;

  /** `changed` runs when a worker becomes ready or dies on its own, so the pool can hand out work. */
  constructor(
    private readonly maxMemoryMb: number,
    private readonly changed: () => void,
  ) {}

  /** The lane's worker: the current one, else the spare promoted, else a fresh one started now. */
  worker(): Slot {
    if (this.current) return this.current;
    this.current = this.spare ?? this.start();
    this.spare = undefined;
    return this.current;
  }

  /** Whether a job given now would be sent at once, with no start-up to wait for. */
  get ready(): boolean {
    return this.current !== undefined && this.current.isReady && !this.current.exited;
  }

  /** Process ids of the worker and the spare (either may be absent); for status reports and tests. */
  get pids(): { pid?: number; spare?: number } {
    return { pid: this.current?.worker.pid, spare: this.spare?.worker.pid };
  }

  /** Start the replacement of the current worker now, if there is none waiting yet. */
  prepareSpare(): void {
    if (!this.closed && !this.spare) this.spare = this.start();
  }

  /** Kill `slot` (it may already be dead); unless closing, its replacement takes over at once. */
  retire(slot: Slot | undefined = this.current): void {
    if (!slot) return;
    if (this.current === slot) this.current = undefined;
    this.stop(slot);
    if (!this.closed) this.worker();
  }

  /** Drop a worker that failed to start, without starting another: it would likely fail again. */
  discard(slot: Slot): void {
    if (this.current === slot) this.current = undefined;
    this.stop(slot);
  }

  /** Kill the worker and the spare; resolves when both processes are gone. */
  async close(): Promise<void> {
    this.closed = true;
    for (const slot of [this.current, this.spare]) if (slot) this.stop(slot);
    this.current = undefined;
    this.spare = undefined;
    await Promise.all(this.stopping);
  }

  private stop(slot: Slot): void {
    const stopped = slot.worker.terminate().catch(() => 0);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
  }

  private start(): Slot {
    const slot = startCalculatorSlot(this.maxMemoryMb, (exited) => {
      if (this.spare === exited) this.spare = undefined;
      if (this.current !== exited) return; // retired on purpose; its replacement is already there
      this.current = undefined;
      // Died on its own while idle: replace it now, as after a kill. One that never got ready is not
      // restarted in a loop; the next call tries again.
      if (exited.isReady) this.changed();
    });
    slot.ready.then(this.changed, () => undefined);
    return slot;
  }
}
