/**
 * One writer per thread: work for a thread runs one job at a time, in arrival order, while other threads
 * run in parallel. It is a queue, not a lock: a job that arrives during a run waits its turn and is
 * never dropped silently, but every wait is bounded. A job that cannot start within `maxWaitMs` (or
 * finds `maxPending` jobs already waiting) is refused with a ThreadBusyError saying so, and a job that
 * runs past `maxRunMs` is aborted through its signal so a stuck run cannot hold the thread forever.
 * Threads with no work hold no memory.
 */
import { formatMs } from '../duration.js';
import { ThreadwiseError } from '../errors.js';

/** A job was refused because its thread was busy too long or had too many jobs waiting. */
export class ThreadBusyError extends ThreadwiseError {
  override name = 'ThreadBusyError';
  constructor(
    readonly threadId: string,
    readonly reason: 'waited-too-long' | 'too-many-waiting',
    message: string,
  ) {
    super('thread-busy', message);
  }
}

/** Bounds of a ThreadQueue; every one has a default. */
export interface ThreadQueueOptions {
  /** Longest a job may wait for its turn. Default 120 s. */
  maxWaitMs?: number;
  /** Jobs that may wait per thread; the next is refused at once. Default 20. */
  maxPending?: number;
  /** A running job is aborted after this long. Default 10 minutes. */
  maxRunMs?: number;
  /** After aborting, how long to wait for the job to stop before letting the next one start. Default 5 s. */
  abortGraceMs?: number;
}

/** Per-job options of `ThreadQueue.run`. */
export interface RunOptions {
  /** Overrides the queue's `maxWaitMs` for this job. */
  maxWaitMs?: number;
}

interface Waiting {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface ThreadState {
  waiting: Waiting[];
}

/** Per-thread FIFO of async jobs with bounded waits (see the file comment). */
export class ThreadQueue {
  private readonly threads = new Map<string, ThreadState>();
  /** How long a job may wait to start before it is refused. */
  readonly maxWaitMs: number;
  private readonly maxPending: number;
  private readonly maxRunMs: number;
  private readonly abortGraceMs: number;

  constructor(options: ThreadQueueOptions = {}) {
    this.maxWaitMs = options.maxWaitMs ?? 120_000;
    this.maxPending = options.maxPending ?? 20;
    this.maxRunMs = options.maxRunMs ?? 600_000;
    this.abortGraceMs = options.abortGraceMs ?? 5_000;
  }

  /** Run `job` when every earlier job of `threadId` is done; resolves or rejects with the job's outcome. */
  run<T>(threadId: string, job: (signal: AbortSignal) => Promise<T>, options: RunOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => this.execute(threadId, job, resolve, reject);
      const state = this.threads.get(threadId);
      if (!state) {
        this.threads.set(threadId, { waiting: [] });
        start();
        return;
      }
      if (state.waiting.length >= this.maxPending) {
        reject(new ThreadBusyError(threadId, 'too-many-waiting', `This thread already has ${state.waiting.length} requests waiting. Wait for the bot to answer them, then try again.`));
        return;
      }
      const maxWaitMs = options.maxWaitMs ?? this.maxWaitMs;
      const waiting: Waiting = {
        start,
        timer: setTimeout(() => {
          state.waiting.splice(state.waiting.indexOf(waiting), 1);
          reject(new ThreadBusyError(threadId, 'waited-too-long', `This thread is busy with an earlier request and this one waited ${formatMs(maxWaitMs)} without starting. Try again when the bot has answered.`));
        }, maxWaitMs),
      };
      state.waiting.push(waiting);
    });
  }

  /** Jobs waiting (not running) for `threadId`. */
  waiting(threadId: string): number {
    return this.threads.get(threadId)?.waiting.length ?? 0;
  }

  /** Jobs waiting (not running) across every thread: the queue depth metrics report. */
  get waitingJobs(): number {
    let total = 0;
    for (const state of this.threads.values()) total += state.waiting.length;
    return total;
  }

  /** Threads with a job running or waiting; 0 when the queue is idle. */
  get activeThreads(): number {
    return this.threads.size;
  }

  private execute<T>(threadId: string, job: (signal: AbortSignal) => Promise<T>, resolve: (v: T) => void, reject: (e: unknown) => void): void {
    const controller = new AbortController();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(runTimer);
      clearTimeout(graceTimer);
      this.next(threadId);
    };
    let graceTimer: NodeJS.Timeout | undefined;
    const runTimer = setTimeout(() => {
      controller.abort(new Error(`The request ran longer than ${formatMs(this.maxRunMs)} and was stopped.`));
      // A job that ignores its signal must not keep the thread closed for good.
      graceTimer = setTimeout(release, this.abortGraceMs);
    }, this.maxRunMs);
    let outcome: Promise<T>;
    try {
      outcome = job(controller.signal);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // Release before settling, so by the time the caller sees the outcome the thread has moved on.
    outcome.then(
      (value) => {
        release();
        resolve(value);
      },
      (error: unknown) => {
        release();
        reject(error);
      },
    );
  }

  private next(threadId: string): void {
    const state = this.threads.get(threadId);
    const following = state?.waiting.shift();
    if (!following) {
      this.threads.delete(threadId);
      return;
    }
    clearTimeout(following.timer);
    following.start();
  }
}
