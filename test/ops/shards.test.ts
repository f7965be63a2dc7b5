import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { httpGet, metricValue, startBotProcess, type BotProcess } from './helpers/bot-process.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { shardOf } from '../fake-discord/gateway.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { createStorage, type Storage } from '../../src/state/index.js';
import { REDIS_URL, serverTarget, tempDir } from '../state/helpers/targets.js';
import { commands } from '../../commands/index.js';

const ROOT = process.cwd();
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

let fake: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
let bot: BotProcess | undefined;
let storage: Storage | undefined;
const threads: string[] = [];
afterEach(async () => {
  await bot?.stop('SIGKILL');
  for (const id of threads.splice(0)) await storage?.conversations.reset(id);
  await storage?.close();
  await fake?.close();
  await model?.close();
  bot = fake = model = storage = undefined;
});

/** `npm start` (tsx app/main.ts) from an empty directory, as a deployment runs it. */
function npmStart(env: Record<string, string>): BotProcess {
  return startBotProcess(TSX, [path.join(ROOT, 'app', 'main.ts')], {
    cwd: tempDir('shards'),
    env: {
      DISCORD_API_BASE_URL: fake!.apiUrl, DISCORD_TOKEN: fake!.token, DISCORD_MESSAGE_CONTENT: 'true',
      OPENAI_BASE_URL: model?.baseURL ?? 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k', AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0',
      WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', LOG_LEVEL: 'info', ...env,
    },
  });
}

async function ask(guildChannelId: string, question: string, reply: string): Promise<string> {
  model!.script({ content: reply });
  const mark = fake!.mark();
  fake!.sendSlashCommand({ name: 'ask', channelId: guildChannelId, options: { question } });
  const answer = await fake!.waitForMessage((m) => m.content.startsWith('### Answer') && m.content.includes(reply), 30_000, { since: mark });
  threads.push(answer.channelId);
  return answer.channelId;
}

describe('shards (SHARDS set: discord.js ShardingManager, one process per shard, state shared through Redis)', () => {
  it('answers guilds on two shards from two processes, and a killed shard comes back with its threads remembered', async (ctx) => {
    const redis = await serverTarget('shards', 'redis', REDIS_URL);
    if (!redis.available) return ctx.skip();
    storage = await createStorage({ keyvUrl: REDIS_URL, historyTokenBudget: 8_000 }, { logger: () => {} });
    // Fresh ids per run: the bot uses the default key prefix on the shared Redis.
    fake = await FakeDiscord.start({ log: () => undefined, shards: 2, idBaseTime: Date.now() });
    // Registered as npm run deploy-commands does: Discord offers no others.
    fake.registerCommands(commands.map((c) => c.data.toJSON()));
    model = await FakeOpenAIServer.start();
    const guildA = fake.defaults.guildId;
    let other = fake.addGuild({ name: 'second' });
    while (shardOf(other.id, 2) === shardOf(guildA, 2)) other = fake.addGuild({ name: 'second' });
    const guildB = other.id;
    fake.addMember({ guildId: guildB, userId: fake.defaults.userId });
    const channelB = fake.addChannel({ guildId: guildB, name: 'questions' }).id;
    const shardA = shardOf(guildA, 2);
    const shardB = shardOf(guildB, 2);

    bot = npmStart({ SHARDS: 'auto', KEYV_URL: REDIS_URL, HEALTH_PORT: '0' });
    await bot.waitFor(/all shards are running/, 90_000);
    expect(fake.identifies.map((i) => i.shard).sort()).toEqual([[0, 2], [1, 2]]);
    const healthOf = async (shard: number) => (await bot!.waitFor(new RegExp(`"shard":${shard},[^\\n]*"health":"(http://127\\.0\\.0\\.1:\\d+)"`), 5_000))[1]!;
    const health = { [shardA]: await healthOf(shardA), [shardB]: await healthOf(shardB) };

    const threadA = await ask(fake.defaults.channelId, 'What is 6 times 7?', 'It is 42.');
    const threadB = await ask(channelB, 'What is 2 plus 2?', 'It is 4.');
    // Each guild was answered by the process of its own shard.
    for (const [shard, url] of Object.entries(health)) {
      const metrics = (await httpGet(`${url}/metrics`)).body;
      expect(metricValue(metrics, `threadwise_runs_total{reason="answer",shard="${shard}"}`)).toBe(1);
    }
    // Both threads are in the shared store.
    expect((await storage.conversations.load(threadA)).messages.map((m) => m.content)).toEqual(['What is 6 times 7?', 'It is 42.']);
    expect((await storage.conversations.load(threadB)).messages.map((m) => m.content)).toEqual(['What is 2 plus 2?', 'It is 4.']);

    // Kill guild B's shard outright; the manager starts a new process for it.
    const pid = Number((await bot.waitFor(new RegExp(`"shard":${shardB},"pid":(\\d+),"msg":"shard process started"`), 5_000))[1]);
    const from = bot.output().length;
    process.kill(pid, 'SIGKILL');
    await bot.waitFor(new RegExp(`"shard":${shardB},"pid":${pid},"exitCode":null,"signal":"SIGKILL","restartInMs":2000,"msg":"shard process ended; the manager starts a new one"`), 10_000, from);
    const respawned = Number((await bot.waitFor(new RegExp(`"shard":${shardB},"pid":(\\d+),"msg":"shard process started"`), 10_000, from))[1]);
    expect(respawned).not.toBe(pid);
    await bot.waitFor(new RegExp(`"shard":${shardB},"msg":"shard connected to Discord"`), 60_000, from);
    expect(fake.identifies.filter((i) => JSON.stringify(i.shard) === JSON.stringify([shardB, 2]))).toHaveLength(2);

    // A follow-up in guild B's thread is answered by the new process, with the thread's memory.
    model.script({ content: 'Doubled, it is 8.' });
    fake.sendMessage({ channelId: threadB, content: 'And doubled?' });
    await fake.waitForMessage((m) => m.channelId === threadB && m.content.includes('Doubled, it is 8.'), 30_000);
    const request = model.requests.at(-1)!.body.messages.map((m) => m.content ?? '');
    expect(request.join('\n')).toMatch(/What is 2 plus 2\?[\s\S]*It is 4\.[\s\S]*And doubled\?/);
    expect((await storage.conversations.load(threadB)).messages).toHaveLength(4);

    expect(await bot.stop('SIGTERM')).toBe(0);
    expect(bot.output()).toContain('"msg":"stopping the shards"');
    // Each shard finished its own shutdown (exit status 0), even with the group's and the manager's signals.
    expect(bot.output()).toMatch(new RegExp(`"shard":${shardA},"pid":\\d+,"exitCode":0,"signal":null,"msg":"shard process ended"`));
    expect(bot.output()).toMatch(new RegExp(`"shard":${shardB},"pid":${respawned},"exitCode":0,"signal":null,"msg":"shard process ended"`));
  }, 240_000);

  it('a shard whose manager is killed stops too, instead of answering on unsupervised', async (ctx) => {
    const redis = await serverTarget('shards', 'redis', REDIS_URL);
    if (!redis.available) return ctx.skip();
    fake = await FakeDiscord.start({ log: () => undefined });
    // The manager itself as the child (no tsx CLI in between), so the test can kill exactly it.
    bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'app', 'main.ts')], {
      cwd: tempDir('shards'),
      env: { DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_TOKEN: fake.token, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SHARDS: '1', KEYV_URL: REDIS_URL, LOG_LEVEL: 'info' },
    });
    await bot.waitFor(/all shards are running/, 60_000);
    const shardPid = Number((await bot.waitFor(/"shard":0,"pid":(\d+),"msg":"shard process started"/))[1]);
    process.kill(bot.child.pid!, 'SIGKILL');
    await bot.waitFor(/"shard":0,"signal":"manager gone","msg":"shutting down/, 20_000);
    const deadline = Date.now() + 20_000;
    while (alive(shardPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive(shardPid)).toBe(false);
  }, 90_000);

  it('refuses to start shards on SQLite or memory storage, saying which storage to use', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    bot = npmStart({ SHARDS: '2', KEYV_URL: 'sqlite://data/bot.sqlite' });
    expect(await bot.exited).toBe(1);
    expect(bot.output()).toMatch(/SHARDS runs one process per shard.*set KEYV_URL to redis:\/\/… or postgres:\/\/… \(a SQLite file belongs to one machine\)/);
    expect(fake.identifies).toHaveLength(0);
  }, 60_000);

  it('refuses to start more shards than Discord allows sessions today, and says when that resets', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, shards: 2, sessionStartLimit: 1 });
    bot = npmStart({ SHARDS: 'auto', KEYV_URL: 'redis://127.0.0.1:9' });
    expect(await bot.exited).toBe(1);
    expect(bot.output()).toMatch(/Could not start the shards: Discord allows 1 more gateway sessions until \S+ \(of 1 a day\), and 2 shards need 2\./);
    expect(fake.identifies).toHaveLength(0);
  }, 60_000);
});

/** Whether `pid` still runs; an exited process nobody has reaped yet (a zombie) does not count. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
