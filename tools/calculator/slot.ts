/**
 * One calculator worker process and what the host needs to know about it: when it is ready, whether it
 * has exited, and the error it died of. The host owns the decision to replace it; this file only
 * starts it with the limits that make killing it the worst that can happen.
 */
import type { WorkerReply } from './worker.js';
import { startWorker, type ProcessWorker } from './worker-entry.js';

/** A started calculator worker. */
export interface Slot {
  worker: ProcessWorker;
  /** Resolves once mathjs is built and warmed up; rejects if the worker fails to get there. */
  ready: Promise<void>;
  exited: boolean;
  lastError?: Error;
}

/** Generous, because a loaded CI machine can take seconds; only a broken install should hit it. */
const START_TIMEOUT_MS = 20_000;

/** Start a worker with a `maxMemoryMb` heap; `onExit` runs when it ends, for whatever reason. */
export function startCalculatorSlot(maxMemoryMb: number, onExit: (slot: Slot) => void): Slot {
  const worker = startWorker('worker', { maxMemoryMb }, ['mathjs/lib/browser/math.js']);
  // An idle warm worker must not keep a finished CLI run alive; calls in flight hold a ref'd timer.
  worker.unref();
  const slot: Slot = { worker, ready: Promise.resolve(), exited: false };
  slot.ready = new Promise<void>((resolve, reject) => {
    const startTimer = setTimeout(() => reject(new Error(`calculator worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    worker.on('message', (message: WorkerReply) => {
      if (message.type === 'ready') {
        clearTimeout(startTimer);
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
