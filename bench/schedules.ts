/**
 * Scheduled questions (`npm run bench -- schedules`), on SQLite, Redis and PostgreSQL (each when
 * reachable), every figure against a baseline measured in the same run on the same backend:
 *
 * - the scheduler's cost per tick with 1,000 schedules over 100 guilds: a tick with nothing due (one
 *   read of every held guild's schedules, the due check), and the start-up tick that claims the latest
 *   occurrence of all 1,000; against one Keyv get per schedule (1,000 gets), what a scheduler that read
 *   each schedule on its own would pay;
 * - the delay from an occurrence's time to its model call (p50/p95), through the whole bot (the real
 *   discord.js client against the fake Discord, the fake model server): one schedule due, and 20
 *   members' schedules due at the same minute; against the delay of an `/ask` from its interaction to
 *   its model call on the same bot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createScheduler } from '../src/discord/schedules/scheduler.js';
import { silentLogger } from '../src/logger.js';
import { createStorage, type NewSchedule, type Storage } from '../src/state/index.js';
import { startHarness } from '../test/discord/harness.js';
import { manualClock } from '../test/discord/schedules/manual-clock.js';
import { FakeDiscord } from '../test/fake-discord/index.js';
import { FakeOpenAIServer } from '../test/fakes/openai-server.js';
import { purgeSchedules } from '../test/state/helpers/schedules.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 2, 3, 8, 0);
const PATTERNS = ['*/15 * * * *', '0 9 * * 1-5', '30 8 * * 1', '0 */2 * * *', '0 18 * * *'];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];

function urls(): Array<{ kind: string; url: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-schedules-'));
  return [
    { kind: 'sqlite', url: `sqlite://${path.join(dir, 'bench.sqlite')}` },
    { kind: 'redis', url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' },
    { kind: 'postgres', url: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  ];
}

async function open(url: string, namespace: string): Promise<Storage | undefined> {
  try {
    return await createStorage({ keyvUrl: url, historyTokenBudget: 8_000 }, { namespace, logger: () => {}, timeouts: { connectMs: 1_000 } });
  } catch {
    return undefined;
  }
}

const draft = (guild: number, i: number): NewSchedule => ({
  guildId: `G${guild}`, channelId: `C${guild}`, ownerId: `U${guild}-${i % 5}`, question: `Question ${i} of guild ${guild}?`, when: 'bench',
  cron: PATTERNS[i % PATTERNS.length]!, timeZone: ZONES[(guild + i) % ZONES.length]!, description: 'bench', thread: 'new',
  // A week old: every schedule has a latest occurrence to claim at start-up (most too old to run: claimed as skipped).
  createdAt: T0 - 7 * 24 * 60 * MIN, activeSince: T0 - 7 * 24 * 60 * MIN,
});

/** One backend's tick costs, in ms, with the baseline. */
async function tickCost(kind: string, url: string): Promise<BenchSection['rows'][number] | undefined> {
  const namespace = `bench-sched-${process.pid}-${Date.now().toString(36)}`;
  const storage = await open(url, namespace);
  if (!storage) return undefined;
  try {
    const guilds = Array.from({ length: 100 }, (_, g) => `G${g}`);
    for (let g = 0; g < 100; g++) for (let i = 0; i < 10; i++) await storage.schedules.add(draft(g, i), () => undefined);
    const claims = await storage.openScheduleClaims();
    const clock = manualClock(T0 + 7 * MIN); // between quarter hours: the latest occurrences are behind
    let launched = 0;
    const scheduler = createScheduler({ store: storage.schedules, claims, clock, heldGuilds: () => guilds, graceMs: 60 * MIN, logger: silentLogger(), launch: async () => void launched++ });
    let t = performance.now();
    const startup = await scheduler.tick();
    const startupMs = performance.now() - t;
    const idle: number[] = [];
    for (let i = 0; i < 60; i++) {
      clock.advance(1_000); // nothing falls due within these seconds
      t = performance.now();
      await scheduler.tick();
      if (i >= 10) idle.push(performance.now() - t);
    }
    // The baseline: one Keyv get per schedule.
    const gets: number[] = [];
    await storage.conversations.load('warm').catch(() => undefined);
    for (let round = 0; round < 8; round++) {
      t = performance.now();
      for (let i = 0; i < 1_000; i++) await storage.schedules.list(guilds[i % 100]!).catch(() => undefined);
      if (round >= 2) gets.push(performance.now() - t);
    }
    const base = median(gets);
    return {
      backend: kind,
      '1,000 Keyv gets (baseline) ms': fmt(base, 1),
      'tick, nothing due: median / p95 ms': `${fmt(median(idle), 2)} / ${fmt(percentile(idle, 95), 2)}`,
      'tick / baseline': `${fmt(median(idle) / base, 3)}×`,
      'start-up tick (claims) ms': `${fmt(startupMs, 1)} (${startup.claimed.length} claimed)`,
      'start-up / baseline': `${fmt(startupMs / base, 2)}×`,
    };
  } finally {
    await storage.close();
    await purgeSchedules(url, namespace);
  }
}


/** Delay from an occurrence to its model call through the whole bot, with `/ask`'s as the baseline. */
async function delays(kind: string, url: string): Promise<BenchSection['rows'][number] | undefined> {
  if (!(await open(url, 'bench-probe').then(async (s) => (await s?.close(), s !== undefined)))) return undefined;
  const clock = manualClock(T0 - 30_000);
  // Twenty members due at the same minute: lifted limits, since each member's own would not refuse one run anyway.
  // Fresh ids: the bot keeps the default key prefix on the shared servers.
  const fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
  const model = await FakeOpenAIServer.start();
  const h = await startHarness({ keyvUrl: url, schedulerClock: clock, env: { USER_RUNS_PER_HOUR: '10000' } }, { fake, model });
  const ids: string[] = [];
  try {
    await h.storage.guildSettings.update(fake.defaults.guildId, (s) => ({ ...s, schedules: 'everyone' }));
    const owners = Array.from({ length: 20 }, (_, i) => {
      const user = fake.addUser({ username: `member${i}` });
      fake.addMember({ userId: user.id });
      return user.id;
    });
    for (const [i, ownerId] of owners.entries()) {
      const added = await h.storage.schedules.add({ ...draft(0, i), guildId: fake.defaults.guildId, channelId: fake.defaults.channelId, ownerId, cron: '*/15 * * * *', timeZone: 'UTC', createdAt: T0 - MIN, activeSince: T0 - MIN }, () => undefined);
      if (added.ok) ids.push(added.schedule.id);
    }
    const measure = async (at: number, count: number): Promise<number[]> => {
      for (let i = 0; i < count; i++) model.script({ content: 'Nothing new.' });
      const before = model.requests.length;
      clock.set(at);
      const started = Date.now();
      await h.app.scheduler.tick();
      await h.app.scheduler.idle();
      return model.requests.slice(before).map((r) => r.at - started);
    };
    const pause = async (keep: number) => {
      for (const [i, id] of ids.entries()) await h.storage.schedules.update(fake.defaults.guildId, id, (s) => (i < keep ? (({ paused: _p, ...rest }) => rest)(s) : { ...s, paused: { at: 0, reason: 'bench' } }));
    };
    await pause(1);
    const single: number[] = [];
    for (let k = 0; k < 12; k++) single.push(...(await measure(T0 + k * 15 * MIN, 1)));
    await pause(20);
    const many: number[] = [];
    for (let k = 12; k < 17; k++) many.push(...(await measure(T0 + k * 15 * MIN, 20)));
    const asks: number[] = [];
    for (let i = 0; i < 14; i++) {
      model.script({ content: 'Nothing new.' });
      const before = model.requests.length;
      const sent = Date.now();
      fake.sendSlashCommand({ name: 'ask', options: { question: `Anything new ${i}?` } });
      await fake.waitFor(() => model.requests.length > before, 10_000);
      if (i >= 2) asks.push(model.requests[before]!.at - sent);
    }
    const base = Math.max(1, median(asks));
    return {
      backend: kind,
      '/ask → model call (baseline) p50 / p95 ms': `${fmt(median(asks), 0)} / ${fmt(percentile(asks, 95), 0)}`,
      '1 due: p50 / p95 ms': `${fmt(median(single.slice(2)), 0)} / ${fmt(percentile(single.slice(2), 95), 0)}`,
      '1 due p50 / baseline': `${fmt(median(single.slice(2)) / base, 2)}×`,
      '20 due at once: p50 / p95 ms': `${fmt(median(many), 0)} / ${fmt(percentile(many, 95), 0)}`,
      '20 due p50 / baseline': `${fmt(median(many) / base, 2)}×`,
    };
  } finally {
    for (const id of ids) {
      await h.storage.schedules.remove(fake.defaults.guildId, id).catch(() => undefined);
      await h.app.services.schedules.forget(`${fake.defaults.guildId}:${id}`).catch(() => undefined);
    }
    await h.close();
  }
}

export async function benchSchedules(): Promise<BenchSection[]> {
  const ticks: BenchSection['rows'] = [];
  const delayRows: BenchSection['rows'] = [];
  const skipped: string[] = [];
  for (const { kind, url } of urls()) {
    const tick = await tickCost(kind, url);
    if (!tick) {
      skipped.push(kind);
      continue;
    }
    ticks.push(tick);
    const delay = await delays(kind, url);
    if (delay) delayRows.push(delay);
  }
  const unreachable = skipped.length ? [`Not reachable, so not measured: ${skipped.join(', ')}.`] : [];
  return [
    {
      name: 'Scheduled questions: the scheduler\'s cost per tick, 1,000 schedules over 100 guilds',
      rows: ticks,
      notes: ['What the scheduler pays each time it wakes with nothing due (one read of the 100 held guilds\' records, the due check of 1,000 schedules), and at start-up (the latest occurrence of each of the 1,000 schedules claimed: to run if within the grace period, else as skipped), against 1,000 single Keyv reads on the same backend.', ...unreachable],
    },
    {
      name: 'Scheduled questions: delay from an occurrence\'s time to its model call',
      rows: delayRows,
      notes: [
        'From the moment the clock reaches the occurrence to the model server receiving the run\'s first request, through the whole bot: the claim, the pre-run checks (the owner and the channel fetched from Discord, permissions), admission, the thread opened; against an /ask on the same bot, from its interaction to its model request.',
        '20 due at once are 20 turns starting together, sharing this machine\'s cores; on SQLite their writes take turns in this process (src/storage/sqlite-gate.ts) rather than waiting for the file\'s lock on pool threads.',
      ],
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printSection } = await import('./stats.js');
  for (const section of await benchSchedules()) printSection(section);
  process.exit(0);
}
