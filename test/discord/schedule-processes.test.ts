/**
 * Exactly once, for real processes: bots run as `npm start` runs them (clocked-bot.ts: the same
 * composition root, with a scheduler clock the test moves over stdin) against the fake Discord and the
 * fake model server.
 *
 * - Two processes over the same guilds, on Redis and on PostgreSQL: every occurrence is answered once.
 * - SIGKILL, then a restart 10 simulated minutes after a missed occurrence: it runs once; a restart 3
 *   hours after one: it is skipped, and the next run's thread says so (SQLite, the default storage).
 * - SIGKILL after claiming an occurrence, before its run began (while it opens the thread): the
 *   restarted bot takes the occurrence over once the claim's lease has ended, and makes it once.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { createStorage, type Storage } from '../../src/state/index.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { POSTGRES_URL, REDIS_URL, serverTarget } from '../state/helpers/targets.js';
import { isFinalAnswer } from './harness.js';
import { startClockedBot, type ClockedBot } from './schedules/processes.js';
import { CLAIM_LEASE_MS } from '../../src/discord/schedules/scheduler.js';
import { replyTo, sub } from '../policy/discord-helpers.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 2, 3, 8, 0);

let fake: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
let storage: Storage | undefined;
let dir: string | undefined;
const bots: ClockedBot[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.stop('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
  await storage?.close();
  await fake?.close();
  await model?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  fake = model = storage = dir = undefined;
});

async function world() {
  // Fresh ids per run: the bots use the default key prefix on the shared servers.
  fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  model = await FakeOpenAIServer.start();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-schedules-'));
  return { fake, model, dir };
}

const answersIn = (channelId: string) => fake!.threadsIn(channelId).map((t) => fake!.messagesIn(t.id).filter(isFinalAnswer).length);

for (const kind of ['redis', 'postgres'] as const) {
  describe(`two bot processes on ${kind} over the same guilds`, () => {
    it('answer each occurrence once, whichever claims it', async (ctx) => {
      const target = await serverTarget('schedule-processes', kind, kind === 'redis' ? REDIS_URL : POSTGRES_URL);
      if (!target.available) return ctx.skip();
      const { fake, model, dir } = await world();
      const second = fake.addGuild({ name: 'second', ownerId: fake.defaults.ownerId });
      const secondChannel = fake.addChannel({ guildId: second.id, name: 'reports' });
      storage = await createStorage({ keyvUrl: target.url, historyTokenBudget: 8_000 }, { logger: () => {} });
      // The schedules are written as /schedule add writes them (the commands are tested on their own):
      // with two processes on one session's guilds, an interaction would reach both.
      for (const [guildId, channelId] of [[fake.defaults.guildId, fake.defaults.channelId], [second.id, secondChannel.id]] as const) {
        await storage.schedules.add({
          guildId, channelId, ownerId: fake.defaults.ownerId, question: 'Open incidents?', when: 'every 15 minutes', cron: '*/15 * * * *',
          timeZone: 'UTC', description: 'every 15 minutes', thread: 'new', createdAt: T0 - MIN, activeSince: T0 - MIN,
        }, () => undefined);
        cleanups.push(async () => {
          for (const s of await storage!.schedules.list(guildId)) await storage!.schedules.remove(guildId, s.id);
          for (const t of fake.threadsIn(channelId)) await storage!.conversations.reset(t.id);
        });
      }
      const [a, b] = [0, 1].map(() => startClockedBot(fake, model, { cwd: dir, keyvUrl: target.url, startMs: T0 - 30_000 }));
      bots.push(a!, b!);
      await Promise.all([a!.started, b!.started]);
      const claims: Record<'a' | 'b', number> = { a: 0, b: 0 };
      for (let k = 0; k < 4; k++) {
        for (let i = 0; i < 2; i++) model.script({ content: `Nothing open at run ${k + 1}.` });
        // Both processes wake at the same moment.
        const at = T0 + k * 15 * MIN + 200;
        const [fromA, fromB] = await Promise.all([a!.tick(at), b!.tick(at)]);
        claims.a += fromA.length;
        claims.b += fromB.length;
        expect(fromA.length + fromB.length).toBe(2);
      }
      expect(claims.a + claims.b).toBe(8);
      expect(model.requests).toHaveLength(8);
      expect(answersIn(fake.defaults.channelId)).toEqual([1, 1, 1, 1]);
      expect(answersIn(secondChannel.id)).toEqual([1, 1, 1, 1]);
      expect(fake.threadsIn(fake.defaults.channelId).map((t) => t.name.slice(0, 16))).toEqual(['08:00', '08:15', '08:30', '08:45'].map((t) => `2025-03-03 ${t}`));
      expect(await a!.stop('SIGTERM')).toBe(0);
      expect(await b!.stop('SIGTERM')).toBe(0);
    }, 240_000);
  });
}

describe('a bot process killed and restarted', () => {
  it('SIGKILL; restarted 10 simulated minutes after a missed run it makes it once; restarted 3 hours after one it skips it and the next run says so', async () => {
    const { fake, model, dir } = await world();
    const keyvUrl = 'sqlite://data/bot.sqlite';
    const nine = Date.UTC(2025, 2, 3, 9, 0);
    const first = startClockedBot(fake, model, { cwd: dir, keyvUrl, startMs: nine - 5 * MIN });
    bots.push(first);
    expect(await first.started).toEqual([]);
    // The guild's owner (a moderator, as the default setting wants) schedules it through the command.
    const added = await replyTo(fake, fake.sendSlashCommand({ name: 'schedule', options: sub('add', { question: 'Open incidents?', when: 'daily 09:00 UTC' }), userId: fake.defaults.ownerId }), 20_000);
    expect(added.content).toMatch(/^✅ Scheduled `[a-z0-9]+`/);
    expect(await first.stop('SIGKILL')).toBeNull();

    // Down through 09:00, back at 09:10: the start-up tick makes the run, once.
    model.script({ content: 'No open incidents.' });
    const second = startClockedBot(fake, model, { cwd: dir, keyvUrl, startMs: nine + 10 * MIN });
    bots.push(second);
    expect(await second.started).toEqual([expect.objectContaining({ atMs: nine, mode: 'run' })]);
    expect(model.requests).toHaveLength(1);
    expect(answersIn(fake.defaults.channelId)).toEqual([1]);
    expect(await second.tick(nine + 11 * MIN)).toEqual([]);
    expect(await second.stop('SIGKILL')).toBeNull();

    // Down through the next day's 09:00, back at 12:00: three hours late, it is skipped.
    const third = startClockedBot(fake, model, { cwd: dir, keyvUrl, startMs: nine + (24 + 3) * 60 * MIN });
    bots.push(third);
    expect(await third.started).toEqual([expect.objectContaining({ atMs: nine + 24 * 60 * MIN, mode: 'skip' })]);
    expect(model.requests).toHaveLength(1);
    // The run after it says so, first thing in its thread.
    model.script({ content: 'Still none.' });
    expect(await third.tick(nine + 48 * 60 * MIN + 500)).toEqual([expect.objectContaining({ mode: 'run' })]);
    const runs = fake.threadsIn(fake.defaults.channelId);
    expect(runs.map((t) => t.name)).toEqual(['2025-03-03 09:00 · Open incidents?', '2025-03-05 09:00 · Open incidents?']);
    const note = fake.messagesIn(runs[1]!.id)[0]!;
    expect(note.content).toMatch(/^-# ⚠️ The previous run of this schedule was skipped \(due <t:\d+:F>, Tue 4 Mar 2025 09:00 UTC\): I was offline, and a run more than 60 minutes late is not made\.$/);
    expect(fake.messagesIn(runs[1]!.id).find(isFinalAnswer)?.content).toContain('Still none.');
    expect(await third.stop('SIGTERM')).toBe(0);
  }, 240_000);
});

describe('a bot process killed between its claim and its run', () => {
  it('SIGKILL while it opens the run\'s thread; the restarted bot makes the occurrence once its claim\'s lease has ended', async () => {
    const { fake, model, dir } = await world();
    const keyvUrl = 'sqlite://data/bot.sqlite';
    const nine = Date.UTC(2025, 2, 3, 9, 0);
    const first = startClockedBot(fake, model, { cwd: dir, keyvUrl, startMs: nine - 5 * MIN });
    bots.push(first);
    expect(await first.started).toEqual([]);
    const added = await replyTo(fake, fake.sendSlashCommand({ name: 'schedule', options: sub('add', { question: 'Open incidents?', when: 'daily 09:00 UTC' }), userId: fake.defaults.ownerId }), 20_000);
    expect(added.content).toMatch(/^✅ Scheduled `[a-z0-9]+`/);

    // At 09:00 it claims the occurrence and posts the run's first message: killed right there.
    const channelId = fake.defaults.channelId;
    const hold = fake.holdRequests((method, path) => method === 'POST' && path === `/channels/${channelId}/messages`);
    first.child.stdin!.write(`tick ${nine + 200}\n`);
    await hold.reached;
    expect(await first.stop('SIGKILL')).toBeNull();
    hold.release();
    expect(model.requests).toHaveLength(0);

    // Back 30 s later: the claim still holds its lease, so nothing runs yet (the first might only be slow).
    model.script({ content: 'No open incidents.' });
    const second = startClockedBot(fake, model, { cwd: dir, keyvUrl, startMs: nine + 30_000 });
    bots.push(second);
    expect(await second.started).toEqual([]);
    // Once the lease has ended, the occurrence is taken over and made, once.
    expect(await second.tick(nine + 200 + CLAIM_LEASE_MS + 1_000)).toEqual([expect.objectContaining({ atMs: nine, mode: 'run' })]);
    expect(model.requests).toHaveLength(1);
    expect(answersIn(channelId)).toEqual([1]);
    // The killed process's first message never reached Discord: one run, one first message, one thread.
    expect(fake.messagesIn(channelId).filter((m) => m.authorId === fake.botId && m.content.startsWith('⏰'))).toHaveLength(1);
    expect(fake.threadsIn(channelId)).toHaveLength(1);
    expect(await second.tick(nine + 60 * MIN)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 240_000);
});
