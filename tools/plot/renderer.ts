/**
 * The bot's side of chart drawing: one warm worker process (started on first use) that draws one chart
 * at a time, with a time limit per chart and a heap limit for the process, as the calculator's workers
 * have. Vega's layout is synchronous, so the only way to stop a pathological spec is to kill the
 * process; a chart that overruns, overflows the heap or is cancelled costs the worker its life, and the
 * next chart starts a fresh one. Charts wait in a short first-come queue while one is drawn.
 */
import { ToolError } from '../../src/errors.js';
import { startWorker, type ProcessWorker } from '../../src/workers/process-worker.js';
import { chartFontFiles } from './fonts.js';
import type { RenderedChart } from './render.js';
import type { PlotReply, PlotRequest } from './worker.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

export interface PlotRendererOptions {
  /** Wall-clock limit per chart, counted from when the worker starts on it (default 10,000 ms). */
  timeoutMs?: number;
  /** Heap limit of the worker process (default 256 MB). */
  maxMemoryMb?: number;
  /** Charts that may wait while one is drawn before more are turned away (default 8). */
  maxQueue?: number;
}

/** A drawn chart, and the worker's heap after drawing it (MB). */
export type Drawn = RenderedChart & { heapMb: number };

/** Generous, because a loaded machine can take seconds to load vega; only a broken install hits it. */
const START_TIMEOUT_MS = 30_000;

export class PlotRenderer {
  private readonly timeoutMs: number;
  private readonly maxMemoryMb: number;
  private readonly maxQueue: number;
  private readonly fonts = chartFontFiles();
  private worker: { process: ProcessWorker; ready: Promise<void> } | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private nextId = 0;
  private closed = false;
  /** Workers killed so far (time, memory, cancellation); for tests and the bench. */
  restarts = 0;

  constructor(options: PlotRendererOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxMemoryMb = options.maxMemoryMb ?? 256;
    this.maxQueue = options.maxQueue ?? 8;
  }

  /** The worker's process id while one runs (the bench reads its memory). */
  get pid(): number | undefined {
    return this.worker?.process.pid;
  }

  /** The limits, for what the tool tells the model. */
  get limits(): { timeoutMs: number; maxMemoryMb: number } {
    return { timeoutMs: this.timeoutMs, maxMemoryMb: this.maxMemoryMb };
  }

  /** Draw a checked spec; rejects with a ToolError that says why not. */
  render(spec: Record<string, unknown>, signal?: AbortSignal): Promise<Drawn> {
    if (this.closed) return Promise.reject(new ToolError('Charts are shut down.'));
    if (this.waiting >= this.maxQueue) return Promise.reject(new ToolError('The chart renderer is busy with other charts; try again in a moment.'));
    this.waiting += 1;
    const turn = this.tail.then(() => {
      this.waiting -= 1;
      return this.draw(spec, signal);
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Kill the worker; later charts are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.kill();
  }

  private async draw(spec: Record<string, unknown>, signal?: AbortSignal): Promise<Drawn> {
    if (signal?.aborted || this.closed) throw new ToolError(this.closed ? 'Charts are shut down.' : 'The chart was cancelled.');
    const worker = this.start();
    try {
      await worker.ready;
    } catch (error) {
      await this.kill();
      throw new ToolError('The chart renderer could not start; try again later.', { cause: error });
    }
    const outcome = await this.exchange(worker.process, { id: ++this.nextId, spec, fonts: this.fonts }, signal);
    if (outcome.kind === 'reply') {
      if (outcome.reply.ok) return { ...outcome.reply.chart, png: Buffer.from(outcome.reply.chart.png), heapMb: outcome.reply.heapMb };
      throw new ToolError(`Vega could not draw the spec: ${outcome.reply.message.slice(0, TEXT_CAPS.libraryMessage)}`);
    }
    await this.kill();
    this.restarts += 1;
    if (outcome.kind === 'timeout') throw new ToolError(`The chart took longer than ${this.timeoutMs / 1000} s to draw and was stopped. Use fewer data points or simpler transforms.`);
    if (outcome.kind === 'aborted') throw new ToolError('The chart was cancelled.');
    // V8 aborts a process whose heap overflows; its report may be too long for the "heap out of memory" line to be kept.
    if ((outcome.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' || /SIGABRT/.test(outcome.error?.message ?? '')) {
      throw new ToolError(`The chart needed more than the renderer's ${this.maxMemoryMb} MB of memory and was stopped. Use fewer data points or simpler transforms.`);
    }
    throw new ToolError('The chart renderer stopped unexpectedly; try again.', { cause: outcome.error });
  }

  private start(): { process: ProcessWorker; ready: Promise<void> } {
    if (this.worker) return this.worker;
    const child = startWorker('worker', import.meta.url, { maxMemoryMb: this.maxMemoryMb });
    // An idle warm worker must not keep a finished terminal run alive.
    child.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the plot worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      child.on('message', (message: PlotReply) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the plot worker exited with code ${code}`));
        if (this.worker?.process === child) this.worker = undefined;
      });
    });
    ready.catch(() => undefined);
    this.worker = { process: child, ready };
    return this.worker;
  }

  private async kill(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.process.terminate();
  }

  /** One request and whichever comes first: the reply, the time limit, the worker's death, or cancellation. */
  private exchange(child: ProcessWorker, request: PlotRequest, signal?: AbortSignal) {
    type Outcome = { kind: 'reply'; reply: Extract<PlotReply, { type: 'reply' }> } | { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'died'; error?: Error };
    return new Promise<Outcome>((resolve) => {
      let lastError: Error | undefined;
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onMessage = (message: PlotReply) => {
        if (message.type === 'reply' && message.id === request.id) finish({ kind: 'reply', reply: message });
      };
      const onError = (error: Error) => (lastError = error);
      const onExit = () => finish({ kind: 'died', error: lastError });
      const onAbort = () => finish({ kind: 'aborted' });
      // A ref'd timer keeps the process alive while a chart is drawn, though the worker is unref'd.
      const timer = setTimeout(() => finish({ kind: 'timeout' }), this.timeoutMs);
      child.on('message', onMessage);
      child.on('error', onError);
      child.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      child.postMessage(request);
    });
  }
}
