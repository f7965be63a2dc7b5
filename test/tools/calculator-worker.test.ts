/**
 * The calculator's worker life cycle: kept warm between calls, replaced after an overrun, a cancel or
 * a change to its instance, calls served in turn, and shut down cleanly. These run a pool of one worker,
 * which must behave exactly as the single process did; what a larger pool adds is in
 * calculator-pool.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { CalculatorPool } from '../../tools/calculator/pool.js';
import { createCalculatorEvaluator } from '../../tools/calculator/evaluator.js';

const SLOW = 'factorial(bignumber(1e7))'; // minutes of work if nothing stopped it

describe('the calculator worker', () => {
  const calculators: CalculatorPool[] = [];
  const make = (options: ConstructorParameters<typeof CalculatorPool>[0] = {}) => {
    const calculator = new CalculatorPool({ workers: 1, timeoutMs: 500, ...options });
    calculators.push(calculator);
    return calculator;
  };
  afterEach(async () => {
    await Promise.all(calculators.splice(0).map((c) => c.close()));
  });

  it('survives running out of memory: the worker process dies, not the bot, and an innocent next call still works', async () => {
    const calculator = make({ timeoutMs: 10_000 });
    await expect(calculator.calculate('1:5e7')).rejects.toThrow(/more than the calculator's 64 MB of memory/);
    // A huge result that is refused after it was built leaves the worker near its cap...
    await expect(calculator.calculate('ones(2e7)')).rejects.toThrow(ToolError);
    // ...and whatever happens to that worker, a small calculation is not blamed for it.
    expect(await calculator.calculate('2 + 2')).toBe('4');
    expect(calculator.restarts).toBeGreaterThanOrEqual(1);
  }, 30_000);

  // How long a warm call takes is a figure of `npm run bench calculator calculator-stops`, not a test:
  // what is asserted is that the one worker started serves them all.
  it('stays warm: 20 calls in a row are served by the one worker started, never replaced', async () => {
    const calculator = make();
    await calculator.warm();
    const pid = calculator.status()[0]!.pid;
    expect(pid).toBeGreaterThan(0);
    for (let i = 0; i < 20; i += 1) {
      expect(await calculator.calculate(`${i} * 2`)).toBe(String(i * 2));
      expect(calculator.status()[0]!.pid).toBe(pid);
    }
    expect(calculator.restarts).toBe(0);
  });

  it('stops a call that overruns its limit, replaces the worker, and the next call works', async () => {
    const calculator = make();
    await calculator.warm();
    const pid = calculator.status()[0]!.pid;
    // Minutes of work: only the pool's 0.5 s limit ends it, and says so.
    await expect(calculator.calculate(SLOW)).rejects.toThrow(/took longer than 0.5 s/);
    expect(calculator.restarts).toBe(1);
    expect(await calculator.calculate('2 + 2')).toBe('4');
    expect(calculator.status()[0]!.pid).not.toBe(pid);
  });

  it('ends a running call when its signal aborts: its worker is replaced at once, not at its limit', async () => {
    // A limit past the test's own timeout: had the abort not killed the worker, the next call would
    // wait behind the running one until the test timed out.
    const calculator = make({ timeoutMs: 60_000 });
    await calculator.warm();
    const pid = calculator.status()[0]!.pid;
    const controller = new AbortController();
    const pending = calculator.calculate(SLOW, controller.signal);
    setTimeout(() => controller.abort(new Error('run cancelled')), 100);
    await expect(pending).rejects.toThrow(/cancelled/);
    expect(await calculator.calculate('3 * 3')).toBe('9');
    expect(calculator.restarts).toBe(1);
    expect(calculator.status()[0]!.pid).not.toBe(pid);
  });

  it('ends a call still waiting in the queue when its signal aborts, without touching the running one', async () => {
    const calculator = make({ timeoutMs: 1_000 });
    await calculator.warm();
    let slowEnded = false;
    const slow = calculator.calculate(SLOW).catch((error: unknown) => error).finally(() => (slowEnded = true));
    const controller = new AbortController();
    const queued = calculator.calculate('1 + 1', controller.signal);
    controller.abort();
    await expect(queued).rejects.toThrow(/cancelled/);
    // Answered while the running call still holds the worker: it did not wait for its turn.
    expect(slowEnded).toBe(false);
    expect(await slow).toBeInstanceOf(ToolError);
    expect(calculator.restarts).toBe(1); // the slow call's worker, at its limit; the queued call never reached one
  });

  it('drops a call cancelled while the worker is still starting, so the worker never runs it', async () => {
    const calculator = make({ timeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = calculator.calculate(SLOW, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/cancelled/);
    expect(await calculator.calculate('1 + 2')).toBe('3');
    // Had it run, only its 5 s limit would have ended it, and its worker would have been replaced.
    expect(calculator.restarts).toBe(0);
  });

  it('refuses an already-aborted call at once', async () => {
    const calculator = make();
    await expect(calculator.calculate('1 + 1', AbortSignal.abort())).rejects.toThrow(/cancelled/);
  });

  it('answers concurrent callers each with their own result', async () => {
    const calculator = make();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => calculator.calculate(`${i} ^ 2`)));
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => String(i ** 2)));
  });

  it('turns callers away with a clear message when too many are waiting', async () => {
    const calculator = make({ maxQueue: 2 });
    await calculator.warm();
    const calls = [SLOW, '1', '2', '3'].map((e) => calculator.calculate(e).catch((error: Error) => error.message));
    const results = await Promise.all(calls);
    expect(results[3]).toMatch(/busy/);
    expect(results[1]).toBe('1');
  });

  it('refuses calculations after close and rejects the ones still waiting', async () => {
    const calculator = make({ timeoutMs: 5_000 });
    await calculator.warm();
    const running = calculator.calculate(SLOW).catch((error: Error) => error.message);
    const waiting = calculator.calculate('1 + 1').catch((error: Error) => error.message);
    await calculator.close();
    expect(await waiting).toMatch(/shut down/);
    expect(await running).toMatch(/shut down/);
    await expect(calculator.calculate('1 + 1')).rejects.toThrow(/shut down/);
  });

  it('checks length and nesting before anything reaches the worker', async () => {
    const calculator = make();
    await expect(calculator.calculate('9'.repeat(2_000))).rejects.toThrow(/at most 1000/);
    expect(calculator.restarts).toBe(0);
  });
});

describe('the calculator evaluator', () => {
  it('notices when something shared changed during a call, so the host replaces the worker', () => {
    const evaluator = createCalculatorEvaluator();
    expect(evaluator.calculate('1 + 1')).toEqual({ ok: true, text: '2' });
    expect(evaluator.integrityProblem()).toBeUndefined();
    (globalThis as Record<string, unknown>).leakedFromACall = true;
    try {
      expect(evaluator.integrityProblem()).toMatch(/changed/);
    } finally {
      delete (globalThis as Record<string, unknown>).leakedFromACall;
    }
    expect(evaluator.integrityProblem()).toBeUndefined();
  });

  it('gives every call a fresh scope', () => {
    const evaluator = createCalculatorEvaluator();
    expect(evaluator.calculate('secret = 42')).toEqual({ ok: true, text: '42' });
    expect(evaluator.calculate('secret')).toMatchObject({ ok: false, message: expect.stringMatching(/Undefined symbol secret/) });
  });
});
