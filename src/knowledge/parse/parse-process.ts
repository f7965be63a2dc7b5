/**
 * The document reader's worker process as its host sees it: started (unref'd, so an idle reader never
 * keeps the bot's process alive) with its heap limit, ready once it says so (its resident memory then
 * noted), and one request/reply exchange under a time limit and a memory limit. The clock of an
 * exchange starts when the request is sent, so a read that waited for its turn never has that wait
 * counted against it. The memory limit is the process's resident memory, sampled from /proc all the
 * while (src/workers/worker-memory.ts): pdf.js's decoded streams live outside the V8 heap, which the
 * heap limit alone would let grow to gigabytes.
 */
import { startWorker, type ProcessWorker } from '../../workers/process-worker.js';
import { residentBytes, watchMemory } from '../../workers/worker-memory.js';
import type { ParseReply, ParseRequest } from './parse-types.js';

/** A started worker and its readiness (rejects when it fails to start or exits first). */
export interface ParseWorker {
  process: ProcessWorker;
  ready: Promise<void>;
  /** Its resident memory when it said it was ready (undefined where there is no /proc): what a read is measured against. */
  restingRssBytes?: number;
}

/** How one exchange ended: the worker's reply, or why there was none. */
export type Outcome =
  | { kind: 'reply'; reply: Extract<ParseReply, { type: 'reply' }> }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  /** Its resident memory went past the limit: the host is to kill it. */
  | { kind: 'memory-limit' }
  | { kind: 'died'; error?: Error };

/** What one exchange runs under, and who hears of its progress. */
export interface ExchangeLimits {
  timeoutMs: number;
  maxRssBytes: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Generous, because a loaded machine can take seconds to start a process from source. */
const START_TIMEOUT_MS = 30_000;

/** Start the worker with a heap of `maxMemoryMb`; `onExit` hears of it when it ends, for whatever reason. */
export function startParseWorker(maxMemoryMb: number, onExit: (worker: ParseWorker) => void): ParseWorker {
  const child = startWorker('parse-worker', import.meta.url, { maxMemoryMb });
  child.unref();
  const started: ParseWorker = { process: child, ready: Promise.resolve() };
  started.ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the parser worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.on('message', (message: ParseReply) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      started.restingRssBytes = residentBytes(child.pid);
      resolve();
    });
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the parser worker exited with code ${code}`));
      onExit(started);
    });
  });
  started.ready.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
  return started;
}

/**
 * Send one request and wait for whichever comes first: its reply, the time limit, the memory limit,
 * cancellation or death. `peakRssBytes`, the highest resident memory sampled meanwhile, comes with
 * every outcome (undefined where there is no /proc).
 */
export function exchange(child: ProcessWorker, request: ParseRequest, limits: ExchangeLimits): Promise<{ outcome: Outcome; peakRssBytes?: number }> {
  return new Promise((resolve) => {
    let lastError: Error | undefined;
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      limits.signal?.removeEventListener('abort', onAbort);
      resolve({ outcome, peakRssBytes: memory.stop() });
    };
    const onMessage = (message: ParseReply) => {
      if (message.type === 'progress' && message.id === request.id) limits.onProgress?.(message.done, message.total);
      if (message.type === 'reply' && message.id === request.id) finish({ kind: 'reply', reply: message });
    };
    const onError = (error: Error) => (lastError = error);
    const onExit = () => finish({ kind: 'died', error: lastError });
    const onAbort = () => finish({ kind: 'aborted' });
    // A ref'd timer keeps the process alive while a read is in flight, though the worker is unref'd.
    const timer = setTimeout(() => finish({ kind: 'timeout' }), limits.timeoutMs);
    // Its first sample is taken at once: finishing is put off a tick so `memory` exists to be stopped.
    const memory = watchMemory(child.pid, limits.maxRssBytes, () => queueMicrotask(() => finish({ kind: 'memory-limit' })));
    child.on('message', onMessage);
    child.on('error', onError);
    child.on('exit', onExit);
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    child.postMessage(request);
  });
}
