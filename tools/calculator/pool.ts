/**
 * Keeps one calculator worker process warm and feeds it one expression at a time. mathjs evaluation is
 * synchronous, so the only way to stop `factorial(bignumber(1e7))` is to terminate the thread: a call
 * that overruns its wall-clock limit, exhausts the thread's memory, is cancelled, or leaves the shared
 * instance changed costs that thread its life, and a fresh one is started for the next caller.
 */
import { ToolError } from '../../src/errors.js';
import { expressionProblem } from './limits.js';
import { startCalculatorSlot, type Slot } from './slot.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

export interface CalculatorOptions {
  /** Wall-clock limit per calculation (default 2,000 ms). */
  timeoutMs?: number;
  /** Heap limit of the worker process (default 64 MB). */
  maxMemoryMb?: number;
  /** Calculations that may wait for the worker before new ones are turned away (default 32). */
  maxQueue?: number;
}

type Outcome =
  | { kind: 'reply'; reply: Extract<WorkerReply, { type: 'reply' }> }
  | { kind: 'timeout' }
  | { kind: 'died'; error?: Error }
  | { kind: 'aborted' };

/** A request before it is given an id; distributes over the union so each kind keeps its fields. */
type Request = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

interface Job {
  request: Request;
  signal?: AbortSignal;
  settle(result: { text: string } | { error: ToolError }): void;
  /** Set once the job has been retried on a fresh worker after its first one died. */
  retried?: boolean;
}

/** A warm, replaceable worker process that runs calculations in turn. */
export class Calculator {
  private readonly timeoutMs: number;
  private readonly maxMemoryMb: number;
  private readonly maxQueue: number;
  private readonly queue: Job[] = [];
  private current?: Slot;
  private readonly stopping = new Set<Promise<number>>();
  private draining = false;
  private closed = false;
  private nextId = 0;
  /** Workers replaced so far (timeouts, memory, cancellation, taint); for tests and the bench. */
  restarts = 0;

  constructor(options: CalculatorOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.maxMemoryMb = options.maxMemoryMb ?? 64;
    this.maxQueue = options.maxQueue ?? 32;
  }

  /** Evaluate `expression`; resolves with the formatted result, rejects with a ToolError saying why not. */
  calculate(expression: string, signal?: AbortSignal): Promise<string> {
    const problem = expressionProblem(expression);
    if (problem) return Promise.reject(new ToolError(problem));
    return this.enqueue({ kind: 'calculate', expression }, signal);
  }

  /** Resolves when the worker is running and its instance is unchanged; rejects otherwise. */
  async health(): Promise<void> {
    await this.enqueue({ kind: 'health' });
  }

  /** Start the worker now rather than on the first calculation. */
  async warm(): Promise<void> {
    await this.ensureWorker().ready;
  }

  /** Stop the worker and refuse further calculations. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.settle({ error: new ToolError('The calculator has shut down.') });
    if (this.current) this.retire();
    await Promise.all(this.stopping);
  }

  private enqueue(request: Job['request'], signal?: AbortSignal): Promise<string> {
    if (this.closed) return Promise.reject(new ToolError('The calculator has shut down.'));
    if (signal?.aborted) return Promise.reject(new ToolError('The calculation was cancelled.'));
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(new ToolError('The calculator is busy with other calculations; try again in a moment.'));
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      // Cancelling answers at once, even while the job waits in the queue or the worker is being killed.
      const onAbort = () => {
        const waiting = this.queue.indexOf(job);
        if (waiting !== -1) this.queue.splice(waiting, 1);
        job.settle({ error: new ToolError('The calculation was cancelled.') });
      };
      const job: Job = {
        request,
        signal,
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
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let job = this.queue.shift(); job && !this.closed; job = this.queue.shift()) {
        if (!job.signal?.aborted) await this.runJob(job);
      }
    } finally {
      this.draining = false;
    }
  }

  private async runJob(job: Job): Promise<void> {
    const slot = this.ensureWorker();
    try {
      await slot.ready;
    } catch (error) {
      // No eager replacement: a worker that cannot start would only fail again; the next call retries.
      if (this.current === slot) this.current = undefined;
      void slot.worker.terminate().catch(() => 0);
      job.settle({ error: new ToolError('The calculator could not start; try again later.', { cause: error }) });
      return;
    }
    if (job.signal?.aborted) return; // cancelled while the worker was starting; already answered
    const outcome = await this.exchange(slot, job);
    if (outcome.kind === 'reply') {
      const { reply } = outcome;
      if (reply.tainted) this.retire(slot);
      job.settle(reply.ok ? { text: reply.text } : { error: new ToolError(reply.message) });
      return;
    }
    this.retire(slot);
    // A worker can die of what an earlier call left behind (a huge result near the memory cap). The job
    // gets one fresh worker before the death is blamed on it.
    if (outcome.kind === 'died' && !job.retried && !this.closed) {
      job.retried = true;
      return this.runJob(job);
    }
    if (this.closed) {
      job.settle({ error: new ToolError('The calculator has shut down.') });
    } else if (outcome.kind === 'timeout') {
      job.settle({ error: new ToolError(`The calculation took longer than ${this.timeoutMs / 1000} s and was stopped. Use smaller numbers or a simpler expression.`) });
    } else if (outcome.kind === 'died' && (outcome.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      job.settle({ error: new ToolError(`The calculation needed more than the calculator's ${this.maxMemoryMb} MB of memory and was stopped. Use smaller numbers or matrices.`) });
    } else if (outcome.kind === 'died') {
      job.settle({ error: new ToolError('The calculator stopped unexpectedly and was restarted; try again.', { cause: outcome.error }) });
    } else {
      job.settle({ error: new ToolError('The calculation was cancelled.') });
    }
  }

  /** Send one request and wait for whichever comes first: the reply, the time limit, death or cancellation. */
  private exchange(slot: Slot, job: Job): Promise<Outcome> {
    const id = ++this.nextId;
    const { worker } = slot;
    if (slot.exited) return Promise.resolve({ kind: 'died', error: slot.lastError });
    return new Promise<Outcome>((resolve) => {
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        job.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onMessage = (message: WorkerReply) => {
        if (message.type === 'reply' && message.id === id) finish({ kind: 'reply', reply: message });
      };
      const onExit = () => finish({ kind: 'died', error: slot.lastError });
      const onAbort = () => finish({ kind: 'aborted' });
      // A ref'd timer keeps the process alive while a call is in flight, though the worker is unref'd.
      const timer = setTimeout(() => finish({ kind: 'timeout' }), this.timeoutMs);
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      job.signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ ...job.request, id } as WorkerRequest);
    });
  }

  private ensureWorker(): Slot {
    if (this.current) return this.current;
    this.current = startCalculatorSlot(this.maxMemoryMb, (slot) => {
      if (this.current === slot) this.current = undefined;
    });
    return this.current;
  }


  /** Terminate `slot`'s worker (it may already be dead); a new one starts warm unless closing. */
  private retire(slot = this.current): void {
    if (!slot) return;
    if (this.current === slot) this.current = undefined;
    const stopped = slot.worker.terminate().catch(() => 0);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    if (this.closed) return;
    this.restarts += 1;
    this.ensureWorker();
  }
}
