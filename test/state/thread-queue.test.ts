import { describe, expect, it } from 'vitest';
import { ThreadBusyError, ThreadQueue } from '../../src/state/index.js';

/** A job that finishes when the test says so. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ThreadQueue', () => {
  it('runs the jobs of one thread one at a time, in the order they arrived, dropping none', async () => {
    const queue = new ThreadQueue();
    const log: string[] = [];
    const first = gate();
    const runs = [
      queue.run('t', async () => {
        log.push('start 0');
        await first.opened;
        log.push('end 0');
      }),
      ...[1, 2, 3].map((i) =>
        queue.run('t', async () => {
          log.push(`start ${i}`);
          await sleep(1);
          log.push(`end ${i}`);
        }),
      ),
    ];
    await sleep(5);
    expect(log).toEqual(['start 0']);
    expect(queue.waiting('t')).toBe(3);
    first.open();
    await Promise.all(runs);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs different threads side by side', async () => {
    const queue = new ThreadQueue();
    const a = gate();
    const running = queue.run('a', () => a.opened);
    await expect(queue.run('b', async () => 'b done')).resolves.toBe('b done');
    a.open();
    await running;
  });

  it('refuses a job that waited longer than its bound with a clear busy error, and still runs the rest', async () => {
    const queue = new ThreadQueue({ maxWaitMs: 1_000 });
    const first = gate();
    const running = queue.run('t', () => first.opened);
    const impatient = queue.run('t', async () => 'never', { maxWaitMs: 20 });
    const patient = queue.run('t', async () => 'ran');
    const error = await impatient.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadBusyError);
    expect(error).toMatchObject({ code: 'thread-busy', reason: 'waited-too-long' });
    expect((error as Error).message).toMatch(/This thread is busy with an earlier request .* waited 20 ms/);
    first.open();
    await running;
    await expect(patient).resolves.toBe('ran');
  });

  it('refuses at once when too many jobs are already waiting', async () => {
    const queue = new ThreadQueue({ maxPending: 2 });
    const first = gate();
    const jobs = [queue.run('t', () => first.opened), queue.run('t', async () => 1), queue.run('t', async () => 2)];
    await expect(queue.run('t', async () => 3)).rejects.toMatchObject({ reason: 'too-many-waiting' });
    first.open();
    await expect(Promise.all(jobs)).resolves.toEqual([undefined, 1, 2]);
  });

  it('aborts a job that runs too long and moves on even if the job ignores the abort', async () => {
    const queue = new ThreadQueue({ maxRunMs: 30, abortGraceMs: 20 });
    let signal: AbortSignal | undefined;
    const stuck = gate();
    const hung = queue.run('t', (s) => {
      signal = s;
      return stuck.opened;
    });
    // The stuck job ends only when the test opens its gate, after this: the next job runs because the queue moved on.
    await expect(queue.run('t', async () => 'next')).resolves.toBe('next');
    expect(signal?.aborted).toBe(true);
    expect(String(signal?.reason)).toMatch(/ran longer than 30 ms/);
    stuck.open();
    await hung;
  });

  it('passes a failing job’s error to its caller and carries on with the next', async () => {
    const queue = new ThreadQueue();
    const failing = queue.run('t', async () => {
      throw new Error('boom');
    });
    const throwingAtOnce = queue.run('t', () => {
      throw new Error('sync boom');
    });
    const next = queue.run('t', async () => 'fine');
    await expect(failing).rejects.toThrow('boom');
    await expect(throwingAtOnce).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe('fine');
  });

  it('holds no memory for threads with nothing to do', async () => {
    const queue = new ThreadQueue({ maxWaitMs: 10 });
    await Promise.all(Array.from({ length: 1_000 }, (_, i) => queue.run(`thread-${i % 50}`, async () => i)));
    const first = gate();
    const running = queue.run('x', () => first.opened);
    await queue.run('x', async () => 0).catch(() => {});
    first.open();
    await running;
    expect(queue.activeThreads).toBe(0);
  });
});
