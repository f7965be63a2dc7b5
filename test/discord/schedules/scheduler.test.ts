/**
 * The scheduler over a hand-moved clock and the in-memory store and claims: when occurrences run, that
 * each runs once however many processes look, what a restart does with what it missed, and what a
 * clock that jumps does, and what becomes of an occurrence whose claimer died before its run began.
 * (The same claims on SQLite, Redis and PostgreSQL: test/state/schedules/.)
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_LEASE_MS, createScheduler, type DueOccurrence } from '../../../src/discord/schedules/scheduler.js';
import { silentLogger } from '../../../src/logger.js';
import { createStorage, type NewSchedule, type OccurrenceClaims, type Storage } from '../../../src/state/index.js';
import { memoryClaims } from '../../../src/storage/memory/claims.js';
import { manualClock, type ManualClock } from './manual-clock.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 2, 3, 8, 0); // Monday 3 March 2025, 08:00 UTC

const draft = (over: Partial<NewSchedule> = {}): NewSchedule => ({
  guildId: 'G1', channelId: 'C1', ownerId: 'U1', question: 'Open incidents?', when: 'every 15 minutes', cron: '*/15 * * * *',
  timeZone: 'UTC', description: 'every 15 minutes', thread: 'new', createdAt: T0 - MIN, activeSince: T0 - MIN, ...over,
});

async function world() {
  const storage: Storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { logger: () => {} });
  const claims = memoryClaims();
  return { storage, claims };
}

/** A bot's scheduler; its runs end at once unless `launch` says otherwise (a run that never ends: a process that died in it). */
function process(storage: Storage, claims: OccurrenceClaims, clock: ManualClock, held: string[] = ['G1', 'G2'], launch: (due: DueOccurrence) => Promise<unknown> = async () => {}) {
  const runs: DueOccurrence[] = [];
  const scheduler = createScheduler({
    store: storage.schedules, claims, clock, heldGuilds: () => held, graceMs: 60 * MIN, logger: silentLogger(),
    launch: (due) => (runs.push(due), launch(due)),
  });
  return { scheduler, runs, times: () => runs.map((r) => new Date(r.atMs).toISOString().slice(11, 16)) };
}

describe('the scheduler', () => {
  it('runs a schedule every 15 minutes 4 times in an hour, each at its time, looking every minute', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const clock = manualClock(T0 - 30_000);
    const bot = process(storage, claims, clock);
    await bot.scheduler.start();
    expect(clock.wakeAt).toBe(T0); // it sleeps until the next occurrence
    for (let m = 0; m < 60; m++) {
      clock.set(T0 + m * MIN + 200);
      await bot.scheduler.tick();
    }
    expect(bot.times()).toEqual(['08:00', '08:15', '08:30', '08:45']);
    expect(bot.runs.every((r) => r.skipped === 0)).toBe(true);
  });

  it('two processes over the same guilds: each occurrence runs once, on one of them', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const clock = manualClock(T0 - 1_000);
    const [a, b] = [process(storage, claims, clock), process(storage, claims, clock)];
    for (let m = 0; m <= 60; m += 5) {
      clock.set(T0 + m * MIN);
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    }
    expect([...a.times(), ...b.times()].sort()).toEqual(['08:00', '08:15', '08:30', '08:45', '09:00']);
  });

  it('runs a guild\'s schedules only on the process that holds the guild', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft({ guildId: 'G2' }), () => undefined);
    const clock = manualClock(T0);
    const holder = process(storage, claims, clock, ['G2']);
    const other = process(storage, claims, clock, ['G1']);
    await other.scheduler.tick();
    await holder.scheduler.tick();
    expect(other.runs).toEqual([]);
    expect(holder.times()).toEqual(['08:00']);
  });

  it('after a restart 10 minutes late, runs the missed occurrence once; 3 hours late, skips it and the next run says so', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft({ cron: '0 9 * * *', when: 'daily 09:00 UTC' }), () => undefined);
    const nine = Date.UTC(2025, 2, 3, 9, 0);
    // Down at 08:59; back at 09:10.
    const late = manualClock(nine + 10 * MIN);
    const restarted = process(storage, claims, late);
    await restarted.scheduler.start();
    expect(restarted.times()).toEqual(['09:00']);
    // A second restart at 09:12 finds it claimed.
    const again = process(storage, claims, manualClock(nine + 12 * MIN));
    await again.scheduler.start();
    expect(again.runs).toEqual([]);

    // The next day: down from 08:59 to 12:00, three hours after 09:00.
    const clock = manualClock(nine + 27 * 60 * MIN);
    const third = process(storage, claims, clock);
    const report = await third.scheduler.start();
    expect(third.runs).toEqual([]);
    expect(report.claimed).toEqual([{ schedule: expect.stringMatching(/^G1:/), atMs: nine + 24 * 60 * MIN, mode: 'skip' }]);
    clock.set(nine + 48 * 60 * MIN + 500);
    await third.scheduler.tick();
    expect(third.runs).toEqual([expect.objectContaining({ atMs: nine + 48 * 60 * MIN, skipped: 1, lastSkippedMs: nine + 24 * 60 * MIN })]);
  });

  it('a clock that jumps back runs nothing twice; one that jumps forward runs the newest occurrence once and counts the others as skipped', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const clock = manualClock(T0 + 1_000);
    const bot = process(storage, claims, clock);
    await bot.scheduler.start();
    clock.set(T0 + 15 * MIN + 1_000);
    await bot.scheduler.tick();
    clock.set(T0 - 10 * MIN); // NTP steps the clock back 25 minutes
    for (let m = 0; m < 30; m++) {
      clock.advance(MIN);
      await bot.scheduler.tick();
    }
    expect(bot.times()).toEqual(['08:00', '08:15']);
    clock.set(T0 + 180 * MIN + 2 * MIN); // and then 2h45 forward
    await bot.scheduler.tick();
    expect(bot.times()).toEqual(['08:00', '08:15', '11:00']);
    expect(bot.runs.at(-1)).toMatchObject({ skipped: 10, lastSkippedMs: T0 + 165 * MIN });
  });

  it('a daily 09:00 in Europe/Paris runs at 09:00 local on both sides of the spring change', async () => {
    const { storage, claims } = await world();
    const friday = Date.UTC(2025, 2, 28, 12, 0);
    await storage.schedules.add(draft({ cron: '0 9 * * *', timeZone: 'Europe/Paris', createdAt: friday, activeSince: friday }), () => undefined);
    const clock = manualClock(friday);
    const bot = process(storage, claims, clock);
    await bot.scheduler.start();
    for (let h = 0; h < 4 * 24; h++) {
      clock.advance(60 * MIN);
      await bot.scheduler.tick();
    }
    const paris = (ms: number) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit' }).format(ms);
    expect(bot.runs.map((r) => paris(r.atMs))).toEqual(['Sat 09:00', 'Sun 09:00', 'Mon 09:00', 'Tue 09:00']);
    // 08:00 UTC before the change, 07:00 UTC after it.
    expect(bot.runs.map((r) => new Date(r.atMs).getUTCHours())).toEqual([8, 7, 7, 7]);
  });

  it('a paused schedule does not run; resumed, it counts from its resume and does not report the paused runs as skipped', async () => {
    const { storage, claims } = await world();
    const added = await storage.schedules.add(draft(), () => undefined);
    const id = added.ok ? added.schedule.id : '';
    const clock = manualClock(T0 + 1_000);
    const bot = process(storage, claims, clock);
    await bot.scheduler.start();
    await storage.schedules.update('G1', id, (s) => ({ ...s, paused: { at: T0 + 2_000, reason: 'holidays' } }));
    clock.set(T0 + 60 * MIN + 1_000);
    await bot.scheduler.tick();
    expect(bot.times()).toEqual(['08:00']);
    await storage.schedules.update('G1', id, ({ paused: _p, ...s }) => ({ ...s, activeSince: T0 + 61 * MIN }));
    clock.set(T0 + 75 * MIN + 1_000);
    await bot.scheduler.tick();
    expect(bot.times()).toEqual(['08:00', '09:15']);
    expect(bot.runs.at(-1)!.skipped).toBe(0);
  });

  it('a process that dies between its claim and its run leaves the occurrence to another, which runs it once its claim\'s lease has ended', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const clock = manualClock(T0 + 200);
    // Its run never gets as far as the model: the process is gone (or stuck) before it begins.
    const dying = process(storage, claims, clock, ['G1', 'G2'], () => new Promise(() => {}));
    await dying.scheduler.tick();
    expect(dying.times()).toEqual(['08:00']);

    clock.set(T0 + 30_000);
    const restarted = process(storage, claims, clock, ['G1', 'G2'], (due) => due.begin());
    const early = await restarted.scheduler.start();
    expect(early).toMatchObject({ claimed: [], taken: 1 });
    // It looks again when the lease ends (not only at the next occurrence), and not before.
    clock.set(T0 + 200 + CLAIM_LEASE_MS - 1_000);
    expect(await restarted.scheduler.tick()).toMatchObject({ claimed: [], taken: 0 });
    expect(restarted.runs).toEqual([]);
    clock.set(T0 + 200 + CLAIM_LEASE_MS + 1);
    const report = await restarted.scheduler.tick();
    expect(report.claimed).toEqual([{ schedule: expect.stringMatching(/^G1:/), atMs: T0, mode: 'run' }]);
    await restarted.scheduler.idle();
    expect(restarted.runs).toHaveLength(1);
    // The first claimer, were it only slow, may not begin now: its lease was taken over.
    expect(await dying.runs[0]!.begin()).toBe(false);
    // Begun, the occurrence is never taken again.
    clock.advance(CLAIM_LEASE_MS * 3);
    const again = process(storage, claims, clock);
    await again.scheduler.start();
    expect(again.runs).toEqual([]);
  });

  it('a run that ends without beginning (its checks failed, a limit refused it) settles its claim: nobody takes it over', async () => {
    const { storage, claims } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const clock = manualClock(T0 + 200);
    const first = process(storage, claims, clock);
    await first.scheduler.tick();
    await first.scheduler.idle();
    expect(first.times()).toEqual(['08:00']);
    clock.set(T0 + 200 + CLAIM_LEASE_MS + 1);
    const other = process(storage, claims, clock);
    expect(await other.scheduler.start()).toMatchObject({ claimed: [], taken: 1 });
    expect(other.runs).toEqual([]);
    // And a begin after the run ended finds it settled already.
    expect(await first.runs[0]!.begin()).toBe(true);
  });

  it('a claim it cannot settle (the storage fails) is not begun: an occurrence is never made twice', async () => {
    const { storage } = await world();
    await storage.schedules.add(draft(), () => undefined);
    const claims = memoryClaims();
    const failing: OccurrenceClaims = { ...claims, settle: async () => Promise.reject(new Error('storage down')) };
    const began: boolean[] = [];
    const bot = process(storage, failing, manualClock(T0 + 200), ['G1'], async (due) => void began.push(await due.begin()));
    await bot.scheduler.tick();
    await bot.scheduler.idle();
    expect(began).toEqual([false]);
  });
});
