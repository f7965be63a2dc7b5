/**
 * Entry point of the calculator's worker process. It builds the private mathjs instance once, then
 * answers one message at a time. The host kills this process when a call runs too long, eats too much
 * memory or leaves the instance changed, so nothing here needs to defend against slowness itself.
 */
import { createCalculatorEvaluator } from './evaluator.js';

/** What the host sends: a calculation, or a health check of the shared instance. */
export type WorkerRequest = { id: number; kind: 'calculate'; expression: string } | { id: number; kind: 'health' };

/** What the worker answers. `tainted` asks the host to replace this thread after the answer. */
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'reply'; id: number; ok: true; text: string; tainted: boolean }
  | { type: 'reply'; id: number; ok: false; message: string; tainted: boolean };

/**
 * Defence in depth: if an expression ever found a way to a function's constructor, turning strings into
 * code must still fail. Done after mathjs is built, which does not need it afterwards.
 */
function lockDownCodeGeneration(): void {
  const refuse = function refuse(): never {
    throw new EvalError('Code generation is disabled in the calculator.');
  };
  const samples = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (const sample of samples) {
    Object.defineProperty(Object.getPrototypeOf(sample), 'constructor', { value: refuse, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, 'eval', { value: refuse, writable: false, configurable: false });
}

/** The channel to the host: this process's IPC channel (see src/workers/process-worker.ts for why a process). */
const port = {
  on(event: 'message', listener: (request: WorkerRequest) => void) {
    process.on(event, listener as (message: unknown) => void);
  },
  postMessage(reply: WorkerReply) {
    process.send?.(reply);
  },
};

if (!process.send) throw new Error('the calculator worker must run as a child process with an IPC channel');
// The host going away (a crash, kill -9) must not leave this process behind.
process.on('disconnect', () => process.exit(0));

const evaluator = createCalculatorEvaluator();
// mathjs builds functions on first use; one representative call now makes the first real one fast.
evaluator.calculate('round(sqrt(2) * 5 km to mi, 2) + 10%');
lockDownCodeGeneration();

port.on('message', (request: WorkerRequest) => {
  if (request.kind === 'health') {
    const problem = evaluator.integrityProblem();
    const reply: WorkerReply = problem
      ? { type: 'reply', id: request.id, ok: false, message: problem, tainted: true }
      : { type: 'reply', id: request.id, ok: true, text: 'healthy', tainted: false };
    port.postMessage(reply);
    return;
  }
  const result = evaluator.calculate(request.expression);
  const tainted = evaluator.integrityProblem() !== undefined;
  port.postMessage({ type: 'reply', id: request.id, tainted, ...result } satisfies WorkerReply);
});
port.postMessage({ type: 'ready' } satisfies WorkerReply);
