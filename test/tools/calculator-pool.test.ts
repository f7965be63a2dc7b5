/**
 * What a pool of calculator workers adds to the single process: a slow expression holds one worker and
 * the others keep answering, a dead worker is replaced, time spent waiting for a worker never counts
 * against a call's limit, and close stops every process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CalculatorPool, type CalculatorOptions } from '../../tools/calculator/pool.js';

const SLOW = 'factorial(bignumber(1e7))'; // minutes of work if nothing stopped it

/** The promise's outcome as text, plus when it came and whether it has come yet. */
function track(promise: Promise<string>) {
  const started = performance.now();
  const tracked = { done: false, elapsedMs: 0, outcome: '' };
  const settled = promise.then(
    (text) => `result ${text}`,
    (error: Error) => `error ${error.message}`,
  ).then((outcome) => {
    Object.assign(tracked, { done: true, elapsedMs: performance.now() - started, outcome });
    return outcome;
  });
  return Object.assign(tracked, { settled });
}

/** Wait (a few seconds at most) for `check` to hold: a killed process is reaped a moment after the call ends. */
async function eventually(check: () => boolean): Promise<boolean> {
  const giveUp = performance.now() + 5_000;
  while (!check() && performance.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the calculator pool', () => {
  const pools: CalculatorPool[] = [];
  const make = (options: CalculatorOptions) => {
    const pool = new CalculatorPool(options);
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it('answers a fast call while two slow calls take turns on the other worker', async () => {
    const pool = make({ workers: 2, timeoutMs: 1_500 });
    await pool.warm();
    const first = track(pool.calculate(SLOW));
    const fast = track(pool.calculate('6 * 7'));
    const second = track(pool.calculate(SLOW));
    expect(await fast.settled).toBe('result 42');
    expect(first.done).toBe(false); // answered while the slow call still held its worker
    expect(second.done).toBe(false);
    expect(await first.settled).toMatch(/took longer than 1.5 s/);
    expect(await second.settled).toMatch(/took longer than 1.5 s/);
    expect(pool.restarts).toBe(2);
    // Replacements start at once, before anyone asks for them.
    expect(pool.status().every((worker) => worker.pid !== undefined && !worker.busy)).toBe(true);
    expect(await pool.calculate('2 + 2')).toBe('4');
  });

  it('with one worker, keeps the old order: a fast call waits for the slow one ahead of it', async () => {
    const pool = make({ workers: 1, timeoutMs: 700 });
    await pool.warm();
    const slow = track(pool.calculate(SLOW));
    const fast = track(pool.calculate('6 * 7'));
    expect(await fast.settled).toBe('result 42');
    expect(slow.done).toBe(true);
    expect(slow.outcome).toMatch(/took longer than 0.7 s/);
  });

  it("starts a call's time limit when a worker takes it, not while it waits in the queue", async () => {
    const pool = make({ workers: 1, timeoutMs: 800 });
    await pool.warm();
    const first = track(pool.calculate(SLOW));
    const second = track(pool.calculate(SLOW));
    const fast = track(pool.calculate('2 + 2'));
    // The fast call waited behind two full limits and still got its answer...
    expect(await fast.settled).toBe('result 4');
    expect(fast.elapsedMs).toBeGreaterThanOrEqual(1_600);
    // ...and the second slow call ran for its own whole limit after the first one's.
    expect(await first.settled).toMatch(/took longer than 0.8 s/);
    expect(await second.settled).toMatch(/took longer than 0.8 s/);
    expect(second.elapsedMs).toBeGreaterThanOrEqual(first.elapsedMs + 790);
  });

  it('replaces a worker killed in the middle of a call, and the next call works', async () => {
    const pool = make({ workers: 2, timeoutMs: 1_500 });
    await pool.warm();
    const before = pool.status().map((worker) => worker.pid!);
    const slow = track(pool.calculate(SLOW));
    const victim = pool.status().find((worker) => worker.busy)!.pid!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(victim, 'SIGKILL');
    // The other worker answers meanwhile; the killed call gets one fresh worker and then its own limit.
    expect(await pool.calculate('1 + 1')).toBe('2');
    expect(await slow.settled).toMatch(/took longer than 1.5 s/);
    expect(await pool.calculate('2 + 2')).toBe('4');
    const after = pool.status().map((worker) => worker.pid);
    expect(after).not.toContain(victim);
    expect(after.filter((pid) => before.includes(pid!))).toHaveLength(1); // the untouched worker stayed
    expect(pool.restarts).toBeGreaterThanOrEqual(2); // the kill and the overrun
    expect(isAlive(victim)).toBe(false);
  });

  it('starts the replacement of a call past a quarter of its limit early, so the kill leaves no gap', async () => {
    const pool = make({ workers: 1, timeoutMs: 1_200 });
    await pool.warm();
    const first = pool.status()[0]!.pid;
    expect(pool.status()[0]!.spare).toBeUndefined();
    const slow = track(pool.calculate(SLOW));
    await new Promise((resolve) => setTimeout(resolve, 900));
    const spare = pool.status()[0]!.spare;
    expect(spare).toBeDefined();
    expect(slow.done).toBe(false);
    expect(await slow.settled).toMatch(/took longer than 1.2 s/);
    // The spare took over the moment the slow call's worker was killed.
    expect(pool.status()[0]).toEqual({ pid: spare, spare: undefined, busy: false });
    expect(await eventually(() => !isAlive(first!))).toBe(true);
    expect(await pool.calculate('1 + 1')).toBe('2');
    // A spare still waiting when the pool closes is stopped too.
    const again = track(pool.calculate(SLOW));
    await new Promise((resolve) => setTimeout(resolve, 900));
    const waiting = pool.status()[0]!.spare!;
    await pool.close();
    expect(await again.settled).toMatch(/shut down/);
    expect(isAlive(waiting)).toBe(false);
    expect(isAlive(spare!)).toBe(false);
  });

  it('replaces workers that died while idle at once, before any call needs them', { timeout: 30_000 }, async () => {
    const pool = make({ workers: 2, timeoutMs: 1_500 });
    await pool.warm();
    const before = pool.status().map((worker) => worker.pid!);
    for (const pid of before) process.kill(pid, 'SIGKILL');
    // Nobody calls: the replacements start on their own.
    const replaced = () => pool.status().every(({ pid }) => pid !== undefined && !before.includes(pid));
    const giveUp = performance.now() + 15_000; // a start takes a fraction of that even on a loaded machine
    while (!replaced() && performance.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(replaced()).toBe(true);
    const results = await Promise.all(['3 * 3', '4 * 4', '5 * 5'].map((e) => pool.calculate(e)));
    expect(results).toEqual(['9', '16', '25']);
    expect(pool.status().map(({ pid }) => pid)).not.toContain(before[0]);
  });

  it('turns callers away with a clear message when every worker is busy and the queue is full', async () => {
    const pool = make({ workers: 2, timeoutMs: 700, maxQueue: 1 });
    await pool.warm();
    const calls = [SLOW, SLOW, '1', '2'].map((e) => track(pool.calculate(e)));
    const outcomes = await Promise.all(calls.map((call) => call.settled));
    expect(outcomes[3]).toMatch(/busy with other calculations/);
    expect(outcomes[2]).toBe('result 1');
  });

  it('checks the health of every worker', async () => {
    const pool = make({ workers: 3 });
    await pool.warm();
    const pids = pool.status().map((worker) => worker.pid);
    await expect(pool.health()).resolves.toBeUndefined();
    expect(pool.status().map((worker) => worker.pid)).toEqual(pids);
    expect(new Set(pids).size).toBe(3);
  });

  it('stops every worker on close and answers the calls in flight and waiting', async () => {
    const pool = make({ workers: 2, timeoutMs: 5_000 });
    await pool.warm();
    const pids = pool.status().map((worker) => worker.pid!);
    const calls = [SLOW, SLOW, '1 + 1'].map((e) => track(pool.calculate(e)));
    await pool.close();
    for (const call of calls) expect(await call.settled).toMatch(/shut down/);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(pool.status().every((worker) => worker.pid === undefined)).toBe(true);
    await expect(pool.calculate('1 + 1')).rejects.toThrow(/shut down/);
  });

  it('refuses a worker count that is not a whole number of at least one', () => {
    expect(() => new CalculatorPool({ workers: 0 })).toThrow(/at least 1/);
    expect(() => new CalculatorPool({ workers: 1.5 })).toThrow(/whole number/);
  });
});
