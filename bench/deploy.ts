/**
 * Deployment figures, with the bot as real processes against the fake Discord and fake model server:
 * - start-up time to ready (process start → "threadwise is running"), `npm start` (tsx, from source)
 *   against `npm run start:prod` (compiled, production dependencies only), and the commands they run;
 * - throughput of runs per second with a zero-latency model, 2 shards against 1 (both under the
 *   ShardingManager, state on Redis), driving two guilds that live on different shards.
 */
import path from 'node:path';
import { commands } from '../commands/index.js';
import { FakeDiscord } from '../test/fake-discord/index.js';
import { shardOf } from '../test/fake-discord/gateway.js';
import { FakeOpenAIServer } from '../test/fakes/openai-server.js';
import { buildCompiled, type CompiledInstall } from '../test/ops/helpers/compiled.js';
import { startBotProcess } from '../test/ops/helpers/bot-process.js';
import { createStorage } from '../src/state/index.js';
import { REDIS_URL } from '../test/state/helpers/targets.js';
import { fmt, median, type BenchSection } from './stats.js';

const ROOT = process.cwd();

interface Launch {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

function baseEnv(fake: FakeDiscord, model: FakeOpenAIServer, extra: Record<string, string>): Record<string, string> {
  return {
    DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_MESSAGE_CONTENT: 'true',
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0',
    WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', LOG_LEVEL: 'info', ...extra,
  };
}

async function startupMs(launch: Launch, fake: FakeDiscord, model: FakeOpenAIServer, keyvUrl: string): Promise<number> {
  const started = performance.now();
  const bot = startBotProcess(launch.command, launch.args, { cwd: launch.cwd, env: baseEnv(fake, model, { KEYV_URL: keyvUrl }) });
  try {
    await bot.waitFor(/threadwise is running/, 60_000);
    return performance.now() - started;
  } finally {
    await bot.stop('SIGTERM');
  }
}

async function startupTimes(install: CompiledInstall, rounds: number): Promise<BenchSection['rows']> {
  const launches: Launch[] = [
    { label: '`npm start` (tsx, from source; baseline)', command: 'npm', args: ['start'], cwd: ROOT },
    { label: '`npm run start:prod` (compiled)', command: 'npm', args: ['run', 'start:prod'], cwd: install.dir },
    { label: '`tsx app/main.ts` (what npm start runs)', command: path.join(ROOT, 'node_modules', '.bin', 'tsx'), args: ['app/main.ts'], cwd: ROOT },
    { label: '`node dist/app/main.js` (what start:prod and the container run)', command: process.execPath, args: ['dist/app/main.js'], cwd: install.dir },
  ];
  const fake = await FakeDiscord.start({ log: () => undefined });
  const model = await FakeOpenAIServer.start();
  const times = launches.map(() => [] as number[]);
  try {
    // One warm-up round (disk caches), then interleaved rounds so load on the machine hits all alike.
    for (let round = -1; round < rounds; round++) {
      for (const [i, launch] of launches.entries()) {
        const ms = await startupMs(launch, fake, model, `sqlite://${path.join(install.dir, `startup-${i}.sqlite`)}`);
        if (round >= 0) times[i]!.push(ms);
      }
    }
  } finally {
    await fake.close();
    await model.close();
  }
  const base = median(times[0]!);
  return launches.map((launch, i) => ({
    measure: `start-up to ready: ${launch.label}`,
    value: `${fmt(median(times[i]!), 0)} ms (min ${fmt(Math.min(...times[i]!), 0)})`,
    ratio: fmt(median(times[i]!) / base, 2),
  }));
}

/** Runs per second through `shards` shard processes, `inFlight` questions outstanding per guild. */
async function throughput(install: CompiledInstall, shards: number, runs: number, inFlight: number): Promise<{ perSecond: number; restPerRun: number }> {
  const fake = await FakeDiscord.start({ log: () => undefined, shards: 2, idBaseTime: Date.now(), rateLimit: { mode: 'off' } });
  // As `npm run deploy` would have: a Discord client can send only commands the application registered.
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  const model = await FakeOpenAIServer.start();
  const storage = await createStorage({ keyvUrl: REDIS_URL, historyTokenBudget: 8_000 }, { logger: () => {} });
  const threads: string[] = [];
  let second = fake.addGuild({ name: 'second' });
  while (shardOf(second.id, 2) === shardOf(fake.defaults.guildId, 2)) second = fake.addGuild({ name: 'second' });
  fake.addMember({ guildId: second.id, userId: fake.defaults.userId });
  const channels = [fake.defaults.channelId, fake.addChannel({ guildId: second.id, name: 'questions' }).id];
  const bot = startBotProcess(process.execPath, ['dist/app/main.js'], {
    // Without the REST proxy, as before it existed: each process's own limiter (`npm run bench -- scale` measures the proxy).
    // Limits off: this measures what the processes can carry, and one member asks 220 questions, 8 at a
    // time, past the hourly and concurrent limits (`npm run bench -- limits` measures what they cost).
    cwd: install.dir, env: baseEnv(fake, model, { KEYV_URL: REDIS_URL, SHARDS: String(shards), LOG_LEVEL: 'warn', DISCORD_REST_PROXY: 'off', USER_RUNS_PER_HOUR: '0', USER_CONCURRENT_RUNS: '0' }),
  });
  try {
    await fake.waitFor((e) => e.kind === 'gateway' && e.action === 'ready' && fake.identifies.length === shards, 90_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const warmup = 20;
    let next = 0;
    const ask = async (channelId: string) => {
      const question = `q${next++}`;
      model.script({ content: `answer to ${question}` });
      const mark = fake.mark();
      fake.sendSlashCommand({ name: 'ask', channelId, options: { question } });
      const answer = await fake.waitForMessage((m) => m.content.startsWith('### Answer') && m.content.includes(`answer to ${question}`), 60_000, { since: mark });
      threads.push(answer.channelId);
    };
    const drive = async (count: number) => {
      let sent = 0;
      const worker = async (channelId: string) => {
        while (sent < count) {
          sent++;
          await ask(channelId);
        }
      };
      await Promise.all(channels.flatMap((c) => Array.from({ length: inFlight }, () => worker(c))));
    };
    await drive(warmup);
    fake.resetRestCalls();
    const started = performance.now();
    await drive(runs);
    const seconds = (performance.now() - started) / 1000;
    const rest = Object.values(fake.restCallCounts()).reduce((a, b) => a + b, 0);
    return { perSecond: runs / seconds, restPerRun: rest / runs };
  } finally {
    await bot.stop('SIGTERM');
    for (const id of threads) await storage.conversations.reset(id).catch(() => undefined);
    await storage.close();
    await fake.close();
    await model.close();
  }
}

export async function benchDeploy(): Promise<BenchSection> {
  const install = await buildCompiled('bench');
  try {
    const rows = await startupTimes(install, 5);
    const notes = [
      'Start-up: process start to the "threadwise is running" log line (connected to the fake Discord, SQLite opened), median of 5 interleaved rounds after one warm-up round.',
    ];
    const redisUp = await createStorage({ keyvUrl: REDIS_URL, historyTokenBudget: 8_000 }, { timeouts: { connectMs: 1_000 }, logger: () => {} })
      .then((s) => s.close().then(() => true), () => false);
    if (redisUp) {
      const runs = 200;
      const one = await throughput(install, 1, runs, 4);
      const two = await throughput(install, 2, runs, 4);
      rows.push(
        { measure: 'runs per second, 1 shard (baseline)', value: fmt(one.perSecond, 1), ratio: '1.00' },
        { measure: 'runs per second, 2 shards', value: fmt(two.perSecond, 1), ratio: fmt(two.perSecond / one.perSecond, 2) },
        { measure: 'REST calls per run (1 shard / 2 shards)', value: `${fmt(one.restPerRun, 1)} / ${fmt(two.restPerRun, 1)}`, ratio: '' },
        { measure: 'REST calls per second (1 shard / 2 shards)', value: `${fmt(one.perSecond * one.restPerRun, 0)} / ${fmt(two.perSecond * two.restPerRun, 0)}`, ratio: '' },
      );
      notes.push(
        `Throughput: compiled bot under the ShardingManager (SHARDS=1, SHARDS=2), state on Redis, a zero-latency model answering at once; ${runs} one-step runs (after 20 warm-up), 4 questions in flight in each of two guilds that live on different shards. The fake Discord and the model server share the bench process and this machine's cores with the shards. ` +
          'What bounds a process here is discord.js itself: its REST client sends at most 50 requests per second (its `globalRequestsPerSecond`, Discord\'s global limit per bot) on every route but interaction callbacks, so with one of a run\'s REST calls a callback, one process tops out near 50 ÷ (REST calls per run − 1) runs per second, and each shard process has its own 50.',
      );
    } else {
      notes.push(`Throughput skipped: Redis is not reachable at ${REDIS_URL} (shards need shared storage).`);
    }
    return { name: 'Deploy: start-up time and sharded throughput (bot processes against the fake Discord and model server)', rows, notes };
  } finally {
    install.remove();
  }
}
