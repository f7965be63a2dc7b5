/**
 * A pool of warm calculator worker processes, each running one expression at a time, so one member's
 * 2-second expression never holds up another member's arithmetic while a worker is free. mathjs
 * evaluation is synchronous, so the only way to stop `factorial(bignumber(1e7))` is to kill the process:
 * a call that overruns its limit, exhausts the process's memory, is cancelled, or leaves the shared
 * instance changed costs that worker its life, and a fresh one takes its place at once (started while
 * the call ran, if it ran past a quarter of its limit: see lane.ts).
 *
 * Calls wait in one first-come, first-served queue when every worker is busy; the queue is bounded so a
 * flood is turned away with a clear message instead of piling up. Each call's time limit starts when a
 * worker receives it, never while it waits.
 */
import { ToolError } from '../../src/errors.js';
import { expressionProblem } from './limits.js';
import { Lane } from './lane.js';
import { exchange, type Outcome, type Slot } from './slot.js';
import type { WorkerRequest } from './worker.js';

export interface CalculatorOptions {
  /** Worker processes, each running one calculation at a time (default 2; config: CALCULATOR_WORKERS). */
  workers?: number;
  /** Wall-clock limit per calculation, counted from when a worker starts on it (default 2,000 ms). */
  timeoutMs?: number;
  /** Heap limit of each worker process (default 64 MB). */
  maxMemoryMb?: number;
  /** Calculations that may wait for a free worker before new ones are turned away (default 32). */
  maxQueue?: number;
}

/** A request before it is given an id; distributes over the union so each kind keeps its fields. */
type Request = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

interface Job {
  request: Request;
  signal?: AbortSignal;
  /** Only this lane may run the job: a health check looks at each worker in turn. */
  lane?: Lane;
  settle(result: { text: string } | { error: ToolError }): void;
  /** Set once the job has been retried on a fresh worker after its first one died. */
  retried?: boolean;
}

const SHUT_DOWN = 'The calculator has shut down.';
const CANCELLED = 'The calculation was cancelled.';

/** Warm, replaceable worker processes that run calculations side by side. */
export class CalculatorPool {
  private readonly timeoutMs: number;
  private readonly maxMemoryMb: number;
  private readonly maxQueue: number;
  private readonly lanes: Lane[];
  private readonly queue: Job[] = [];
  private closed = false;
  private nextId = 0;
  /** Workers replaced so far (timeouts, memory, cancellation, taint, deaths); for tests and the bench. */
  restarts = 0;

  constructor(options: CalculatorOptions = {}) {
    const workers = options.workers ?? 2;
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a whole number of at least 1 (got ${workers})`);
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.maxMemoryMb = options.maxMemoryMb ?? 64;
    this.lanes = Array.from({ length: workers }, () => new Lane(this.maxMemoryMb, () => this.dispatch()));
    this.maxQueue = options.maxQueue ?? 32;
  }

  /** Evaluate `expression`; resolves with the formatted result, rejects with a ToolError saying why not. */
  calculate(expression: string, signal?: AbortSignal): Promise<string> {
    const problem = expressionProblem(expression);
    if (problem) return Promise.reject(new ToolError(problem));
    return this.enqueue({ kind: 'calculate', expression }, signal);
  }

  /** Resolves when every worker is running and its instance is unchanged; rejects otherwise. */
  async health(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => this.enqueue({ kind: 'health' }, undefined, lane)));
  }

  /** Start every worker now rather than on the first calculation. */
  async warm(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.worker().ready));
  }

  /**
   * Each worker's process id, its spare's (a replacement started early for a call near its limit), and
   * whether it is running a calculation; for status reports and tests.
   */
  status(): Array<{ pid?: number; spare?: number; busy: boolean }> {
    return this.lanes.map((lane) => ({ ...lane.pids, busy: lane.busy }));
  }

  /** Stop every worker and refuse further calculations. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.settle({ error: new ToolError(SHUT_DOWN) });
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }

  private enqueue(request: Request, signal?: AbortSignal, lane?: Lane): Promise<string> {
    if (this.closed) return Promise.reject(new ToolError(SHUT_DOWN));
    if (signal?.aborted) return Promise.reject(new ToolError(CANCELLED));
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(new ToolError('The calculator is busy with other calculations; try again in a moment.'));
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      // Cancelling answers at once, even while the job waits in the queue or its worker is being killed.
      const onAbort = () => {
        const waiting = this.queue.indexOf(job);
        if (waiting !== -1) this.queue.splice(waiting, 1);
        job.settle({ error: new ToolError(CANCELLED) });
      };
      const job: Job = {
        request,
        signal,
        lane,
        settle(result) {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          if ('error' in result) reject(result.error);
          else resolve(result.text);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Hand waiting jobs, oldest first, to free workers. Runs whenever a job arrives or a worker frees up. */
  private dispatch(): void {
    if (this.closed) return;
    // Once in use, every lane keeps a worker started, so a second caller never pays for a cold start.
    for (const lane of this.lanes) lane.worker();
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]!;
      const lane = this.freeLane(job.lane);
      if (!lane) {
        if (!job.lane) return; // no worker free and ready: everyone behind waits too
        i += 1; // a health check waits for its own worker; later jobs may still go elsewhere
        continue;
      }
      this.queue.splice(i, 1);
      lane.busy = true;
      void this.run(lane, job).finally(() => {
        lane.busy = false;
        this.dispatch();
      });
    }
  }

  /**
   * A free lane whose worker is ready. A worker still starting (replacing one that was killed) is
   * taken only when no busy one could free up sooner; otherwise the job waits for whichever comes
   * first, and the new worker's readiness dispatches again.
   */
  private freeLane(only?: Lane): Lane | undefined {
    if (only) return only.busy ? undefined : only;
    const idle = this.lanes.filter((lane) => !lane.busy);
    return idle.find((lane) => lane.ready) ?? (idle.length === this.lanes.length ? idle[0] : undefined);
  }

  private async run(lane: Lane, job: Job): Promise<void> {
    const slot = lane.worker();
    try {
      await slot.ready;
    } catch (error) {
      // Not restarted in a loop: a worker that cannot start would only fail again. The next dispatch
      // (this job's end, or the next call) tries one fresh worker.
      lane.discard(slot);
      const message = this.closed ? SHUT_DOWN : 'The calculator could not start; try again later.';
      job.settle({ error: new ToolError(message, { cause: error }) });
      return;
    }
    if (job.signal?.aborted) return; // cancelled while the worker was starting; already answered
    // Ordinary calls take a millisecond; one still running at a quarter of its limit will probably be
    // killed, so its replacement starts meanwhile. If it is not, the spare waits for the lane's next kill.
    const early = setTimeout(() => lane.prepareSpare(), this.timeoutMs / 4);
    const outcome = await exchange(slot, { ...job.request, id: ++this.nextId } as WorkerRequest, this.timeoutMs, job.signal);
    clearTimeout(early);
    if (outcome.kind === 'reply') {
      const { reply } = outcome;
      if (reply.tainted) this.retire(lane, slot);
      job.settle(reply.ok ? { text: reply.text } : { error: new ToolError(reply.message) });
      return;
    }
    this.retire(lane, slot);
    // A worker can die of what an earlier call left behind (a huge result near the memory cap). The job
    // gets one fresh worker before the death is blamed on it.
    if (outcome.kind === 'died' && !job.retried && !this.closed) {
      job.retried = true;
      return this.run(lane, job);
    }
    job.settle({ error: this.failure(outcome) });
  }

  /** What the model is told when a call ended without a reply. */
  private failure(outcome: Exclude<Outcome, { kind: 'reply' }>): ToolError {
    if (this.closed) return new ToolError(SHUT_DOWN);
    if (outcome.kind === 'timeout') {
      return new ToolError(`The calculation took longer than ${this.timeoutMs / 1000} s and was stopped. Use smaller numbers or a simpler expression.`);
    }
    if (outcome.kind === 'aborted') return new ToolError(CANCELLED);
    if ((outcome.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new ToolError(`The calculation needed more than the calculator's ${this.maxMemoryMb} MB of memory and was stopped. Use smaller numbers or matrices.`);
    }
    return new ToolError('The calculator stopped unexpectedly and was restarted; try again.', { cause: outcome.error });
  }

  /** Kill `slot`'s worker (it may already be dead); its replacement takes over unless closing. */
  private retire(lane: Lane, slot: Slot): void {
    lane.retire(slot);
    if (!this.closed) this.restarts += 1;
  }
}
