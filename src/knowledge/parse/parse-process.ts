/**
 * The document reader's worker process as its host sees it: started (unref'd, so an idle reader never
 * keeps the bot's process alive) with its heap limit, ready once it says so, and one request/reply
 * exchange with a time limit. The clock of an exchange starts when the request is sent, so a read that
 * waited for its turn never has that wait counted against it.
 */
import { startWorker, type ProcessWorker } from '../../workers/process-worker.js';
import type { ParseReply, ParseRequest } from './parse-types.js';

/** A started worker and its readiness (rejects when it fails to start or exits first). */
export interface ParseWorker {
  process: ProcessWorker;
  ready: Promise<void>;
}

/** How one exchange ended: the worker's reply, or why there was none. */
export type Outcome =
  | { kind: 'reply'; reply: Extract<ParseReply, { type: 'reply' }> }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'died'; error?: Error };

/** Generous, because a loaded machine can take seconds to start a process from source. */
const START_TIMEOUT_MS = 30_000;

/** Start the worker with a heap of `maxMemoryMb`; `onExit` hears of it when it ends, for whatever reason. */
export function startParseWorker(maxMemoryMb: number, onExit: (worker: ParseWorker) => void): ParseWorker {
  const child = startWorker('parse-worker', import.meta.url, { maxMemoryMb });
  child.unref();
  const started: ParseWorker = { process: child, ready: Promise.resolve() };
  started.ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the parser worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.on('message', (message: ParseReply) => message.type === 'ready' && (clearTimeout(timer), resolve()));
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

/** Send one request and wait for whichever comes first: its reply, the time limit, cancellation or death. */
export function exchange(child: ProcessWorker, request: ParseRequest, timeoutMs: number, parse: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void }): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    let lastError: Error | undefined;
    const finish = (outcome: Outcome) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      parse.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onMessage = (message: ParseReply) => {
      if (message.type === 'progress' && message.id === request.id) parse.onProgress?.(message.done, message.total);
      if (message.type === 'reply' && message.id === request.id) finish({ kind: 'reply', reply: message });
    };
    const onError = (error: Error) => (lastError = error);
    const onExit = () => finish({ kind: 'died', error: lastError });
    const onAbort = () => finish({ kind: 'aborted' });
    // A ref'd timer keeps the process alive while a read is in flight, though the worker is unref'd.
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    child.on('message', onMessage);
    child.on('error', onError);
    child.on('exit', onExit);
    parse.signal?.addEventListener('abort', onAbort, { once: true });
    child.postMessage(request);
  });
}
