/**
 * The bot past one process, as real processes against the fake Discord and model server: a world of
 * two guilds on different shards with many members (one question each, so the per-member limits of
 * the production defaults never refuse one), "hosts" (a shard manager each, with its own SHARD_IDS),
 * the standalone REST proxy (`npm run rest-proxy`), and a burst of /ask. Shared by the tests and the bench.
 */
import net from 'node:net';
import path from 'node:path';
import { FakeDiscord } from '../../fake-discord/index.js';
import { shardOf } from '../../fake-discord/gateway.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { tempDir } from '../../state/helpers/targets.js';
import { commands } from '../../../commands/index.js';
import { startBotProcess, type BotProcess } from './bot-process.js';

const ROOT = process.cwd();
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export interface ScaleWorld {
  fake: FakeDiscord;
  /** Channels to ask in, spread over both guilds (so over both shards). */
  channels: string[];
  /** Members of both guilds, one per question. */
  users: string[];
}

/** A fake Discord with two guilds on different shards of 2, `channelsPerGuild` channels each, and `members` members in both. */
export async function scaleWorld(options: { members: number; channelsPerGuild?: number; fake?: Parameters<typeof FakeDiscord.start>[0] }): Promise<ScaleWorld> {
  // Fresh ids per run: the bot uses the default key prefix on the shared Redis (and the identify lock names the bot).
  const fake = await FakeDiscord.start({ log: () => undefined, shards: 2, idBaseTime: Date.now(), ...options.fake });
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  const first = fake.defaults.guildId;
  let other = fake.addGuild({ name: 'second' });
  while (shardOf(other.id, 2) === shardOf(first, 2)) other = fake.addGuild({ name: 'second' });
  const channels: string[] = [];
  for (const guildId of [first, other.id]) {
    for (let n = 0; n < (options.channelsPerGuild ?? 3); n++) channels.push(fake.addChannel({ guildId, name: `questions-${n}` }).id);
  }
  const users: string[] = [];
  for (let n = 0; n < options.members; n++) {
    const user = fake.addUser({ username: `member${n}` });
    fake.addMember({ guildId: first, userId: user.id });
    fake.addMember({ guildId: other.id, userId: user.id });
    users.push(user.id);
  }
  return { fake, channels, users };
}

/** The environment every bot process of the rig gets (production defaults otherwise). */
export function botEnv(fake: FakeDiscord, model: FakeOpenAIServer, extra: Record<string, string>): Record<string, string> {
  return {
    DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_TOKEN: fake.token, DISCORD_MESSAGE_CONTENT: 'true',
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0',
    WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', LOG_LEVEL: 'info', ...extra,
  };
}

/** `npm start` from an empty directory (tsx app/main.ts), as a host runs it. The bench gives its own directory (no test hooks there). */
export function startHost(env: Record<string, string>, cwd?: string): BotProcess {
  return startBotProcess(TSX, [path.join(ROOT, 'app', 'main.ts')], { cwd: cwd ?? tempDir('scale'), env });
}

/** `npm run rest-proxy` on a free port; resolves with the process and the URL for DISCORD_REST_PROXY. */
export async function startProxyProcess(env: Record<string, string>): Promise<{ proxy: BotProcess; url: string }> {
  const port = await freePort();
  const proxy = startBotProcess(TSX, [path.join(ROOT, 'app', 'rest-proxy-main.ts')], {
    cwd: tempDir('scale-proxy'), env: { ...env, REST_PROXY_PORT: String(port) },
  });
  const match = await proxy.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+\/api)","msg":"REST proxy is running/, 30_000);
  return { proxy, url: match[1]! };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Longest wait for the next answer of a burst: a bot that answers nothing for this long has stopped. */
const STALL_MS = 60_000;

/**
 * Sends `count` /ask at once, each from its own member, round-robin over the channels, and waits for
 * every answer. Resolves with the threads (for cleaning up) and how long the burst took (a figure for
 * the bench: the tests assert that every question is answered, not how fast). It waits as long as
 * answers keep coming; it gives up when every question left has an interaction that was never
 * acknowledged (it can no longer be answered), or when no answer came for `stallMs` (default 60 s).
 */
export async function askBurst(world: ScaleWorld, model: FakeOpenAIServer, count: number, options: { stallMs?: number } = {}): Promise<{ threads: string[]; seconds: number }> {
  const { fake, channels, users } = world;
  if (users.length < count) throw new Error(`the world has ${users.length} members for ${count} questions`);
  const stallMs = options.stallMs ?? STALL_MS;
  for (let n = 0; n < count; n++) model.script({ content: `Answer ${n}.` });
  const mark = fake.mark();
  const interactionsBefore = fake.interactions.length;
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    fake.sendSlashCommand({ name: 'ask', channelId: channels[n % channels.length], userId: users[n], options: { question: `Question ${n}?` } });
  }
  // A streamed answer is created and then edited: any version that carries the model's answer counts.
  const answered = () => new Set(fake.events.slice(mark).flatMap((e) =>
    e.kind === 'message' && e.action !== 'delete' && e.message.content.startsWith('### Answer') && /Answer \d+\./.test(e.message.content) ? [e.message.channelId] : []));
  const expired = () => fake.interactions.slice(interactionsBefore).filter((i) => i.expired).length;
  let seen = 0;
  let lastProgress = Date.now();
  for (;;) {
    const now = answered().size;
    if (now >= count || now + expired() >= count) break;
    if (now > seen) [seen, lastProgress] = [now, Date.now()];
    else if (Date.now() - lastProgress > stallMs) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const threads = [...answered()];
  if (threads.length < count) {
    throw new Error(`${threads.length} of ${count} questions answered (${expired()} interactions not acknowledged in time; no new answer for the last ${Math.round((Date.now() - lastProgress) / 1000)} s)`);
  }
  return { threads, seconds };
}
