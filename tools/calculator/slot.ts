/**
 * One calculator worker process and what the pool needs to know about it: when it is ready, whether it
 * has exited, the error it died of, and one request/reply exchange with a time limit. The pool owns the
 * decision to replace it; this file only starts it with the limits that make killing it the worst that
 * can happen.
 */
import type { WorkerReply, WorkerRequest } from './worker.js';
import { startWorker, type ProcessWorker } from '../../src/workers/process-worker.js';

/** A started calculator worker. */
export interface Slot {
  worker: ProcessWorker;
  /** Resolves once mathjs is built and warmed up; rejects if the worker fails to get there. */
  ready: Promise<void>;
  /** True once `ready` has resolved (and stays so after an exit: see `exited`). */
  isReady: boolean;
  exited: boolean;
  lastError?: Error;
}

/** How one exchange ended: the worker's reply, or why there was none. */
export type Outcome =
  | { kind: 'reply'; reply: Extract<WorkerReply, { type: 'reply' }> }
  | { kind: 'timeout' }
  | { kind: 'died'; error?: Error }
  | { kind: 'aborted' };

/** Generous, because a loaded CI machine can take seconds; only a broken install should hit it. */
const START_TIMEOUT_MS = 20_000;

/** Start a worker with a `maxMemoryMb` heap; `onExit` runs when it ends, for whatever reason. */
export function startCalculatorSlot(maxMemoryMb: number, onExit: (slot: Slot) => void): Slot {
  const worker = startWorker('worker', import.meta.url, { maxMemoryMb }, ['mathjs/lib/browser/math.js']);
  // An idle warm worker must not keep a finished CLI run alive; calls in flight hold a ref'd timer.
  worker.unref();
  const slot: Slot = { worker, ready: Promise.resolve(), isReady: false, exited: false };
  slot.ready = new Promise<void>((resolve, reject) => {
    const startTimer = setTimeout(() => reject(new Error(`calculator worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    worker.on('message', (message: WorkerReply) => {
      if (message.type === 'ready') {
        clearTimeout(startTimer);
        slot.isReady = true;
        resolve();
      }
    });
    worker.on('error', (error) => {
      slot.lastError = error;
      clearTimeout(startTimer);
      reject(error);
    });
    worker.on('exit', (code) => {
      slot.exited = true;
      clearTimeout(startTimer);
      reject(new Error(`calculator worker exited with code ${code} before it was ready`));
      onExit(slot);
    });
  });
  slot.ready.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
  return slot;
}

/**
 * Send one request to a ready worker and wait for whichever comes first: the reply, the time limit,
 * death or cancellation. The clock starts here, when the request is sent, so time a call spent waiting
 * for a free worker (or for one to start) never counts against its limit.
 */
export function exchange(slot: Slot, request: WorkerRequest, timeoutMs: number, signal?: AbortSignal): Promise<Outcome> {
  const { worker } = slot;
  if (slot.exited) return Promise.resolve({ kind: 'died', error: slot.lastError });
  return new Promise<Outcome>((resolve) => {
    const finish = (outcome: Outcome) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onMessage = (message: WorkerReply) => {
      if (message.type === 'reply' && message.id === request.id) finish({ kind: 'reply', reply: message });
    };
    const onExit = () => finish({ kind: 'died', error: slot.lastError });
    const onAbort = () => finish({ kind: 'aborted' });
    // A ref'd timer keeps the process alive while a call is in flight, though the worker is unref'd.
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage(request);
  });
}
