/**
 * The watchdog alone, with real timers: one timer serves the silence and the deadline, and a byte only
 * notes the time, so these check that the timer, waking, tells a quiet reply from a busy one.
 */
import { describe, expect, it } from 'vitest';
import { IdleWatchdog, type WatchdogReason } from '../../src/llm/idle-watchdog.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function watch(idleMs: number, deadlineInMs?: number) {
  const fired: Array<{ reason: WatchdogReason; at: number }> = [];
  const start = performance.now();
  const dog = new IdleWatchdog(idleMs, deadlineInMs === undefined ? undefined : Date.now() + deadlineInMs, (reason) => fired.push({ reason, at: performance.now() - start }));
  return { dog, fired };
}

describe('IdleWatchdog', () => {
  it('stays quiet while bytes keep coming, over many idle periods, and fires once the silence is long enough', async () => {
    const { dog, fired } = watch(250);
    for (let i = 0; i < 24; i++) {
      await sleep(25);
      dog.touch();
    }
    // 600 ms of a reply whose gaps stay far below 250 ms: the timer woke twice and set itself again.
    expect(fired).toEqual([]);
    await sleep(600);
    expect(fired.map((f) => f.reason)).toEqual(['idle']);
    expect(dog.fired).toBe('idle');
    dog.stop();
  });

  it('fires for the deadline, which no activity extends, before the silence would', async () => {
    const { dog, fired } = watch(1_000, 80);
    for (let i = 0; i < 6; i++) {
      await sleep(20);
      dog.touch();
    }
    await sleep(60);
    expect(fired.map((f) => f.reason)).toEqual(['deadline']);
    expect(fired[0]!.at).toBeGreaterThanOrEqual(75);
    dog.stop();
  });

  it('a deadline already past fires at once; with no deadline only the silence ends the reply', async () => {
    const past = watch(1_000, -5);
    const noDeadline = new IdleWatchdog(40, Infinity, () => undefined);
    await sleep(10);
    expect(past.fired.map((f) => f.reason)).toEqual(['deadline']);
    noDeadline.touch();
    await sleep(80);
    expect(noDeadline.fired).toBe('idle');
  });

  it('never fires after stop(), even when touched afterwards', async () => {
    const { dog, fired } = watch(30);
    dog.stop();
    dog.touch();
    await sleep(80);
    expect(fired).toEqual([]);
    expect(dog.fired).toBeUndefined();
  });
});
