/**
 * An end-to-end bot for tests, started through the same composition root as `npm start` (`startApp`)
 * with a configuration read the same way (`loadConfig` over an environment): the real discord.js client
 * against the fake Discord, the real openai SDK against the fake model server, the real tools, tool
 * policy and storage (in memory unless a URL is given). It runs with the production defaults, the values
 * `.env.example` ships (limits on, streaming on); a test that changes a setting passes it in `env` and
 * says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'dotenv';
import { startApp, type App } from '../../app/app.js';
import { commands } from '../../commands/index.js';
import { WRITING_MARK } from '../../src/discord/posting/answer-stream.js';
import type { ToolDefinition } from '../../src/agent/tool.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import type { Storage } from '../../src/state/index.js';
import type { SchedulerClock } from '../../src/discord/schedules/scheduler.js';
import { FakeDiscord, type FakeDiscordOptions } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';

/** A message that is a finished answer: `### Answer`, no longer marked as still being written. */
export function isFinalAnswer(m: { content: string }): boolean {
  return m.content.startsWith('### Answer') && !m.content.includes(WRITING_MARK.trim());
}

/**
 * The settings `.env.example` ships (limits on, streaming on, HISTORY_TOKEN_BUDGET 8000, AGENT_PROTOCOL
 * auto, ...), for tests that must hold with the production defaults. Empty values are left out (unset).
 */
export function productionDefaults(): Record<string, string> {
  // Two folders up from the sources; three from the bench's build (`.bench-build/test/discord/`).
  const file = ['../../.env.example', '../../../.env.example'].map((p) => new URL(p, import.meta.url)).find((u) => existsSync(u))!;
  const shipped = parse(readFileSync(file));
  return Object.fromEntries(Object.entries(shipped).filter(([, value]) => value !== ''));
}

export interface HarnessOptions {
  /**
   * `.env.example`'s values (the default): only what a test must change differs (the fakes' addresses,
   * retry waits of milliseconds, the test's own `env`), and the storage stays in memory unless `keyvUrl`
   * says. `false`: the short timeouts of TEST_DEFAULTS, for a test that says why it needs them.
   */
  production?: boolean;
  fake?: FakeDiscordOptions;
  messageContent?: boolean;
  keyvUrl?: string;
  maxRetries?: number;
  stepLogIntervalMs?: number;
  /** More settings, as environment variables (`AGENT_PROTOCOL: 'text'`, `HISTORY_TOKEN_BUDGET: '600'`); a function when they name the fake (its application id). */
  env?: Record<string, string> | ((fake: FakeDiscord) => Record<string, string>);
  /** Replace tools' code by name, so a test sees (or holds) every call. */
  toolRuns?: Record<string, ToolDefinition['run']>;
  /** How many waiting follow-ups one turn takes (the bench's one-run-per-message baseline sets 1). */
  followUpBatch?: { maxMessages?: number };
  /** Let the bot start with a given storage (restart tests). */
  storage?: Storage;
  /** Let read_url and `/kb add url:` read pages from servers the test started on 127.0.0.1. */
  allowLoopbackUrls?: boolean;
  /** The knowledge base's test knobs (how often `/kb add` shows progress, the embedding job's wait). */
  knowledge?: { progressEveryMs?: number; embeddingIdleMs?: number };
  /** The scheduler's clock: a test moves it by hand and ticks `app.scheduler` itself. */
  schedulerClock?: SchedulerClock;
  /** The bot's clock (approval deadlines, audit times): a test moves it instead of waiting. */
  now?: () => Date;
}

/** Short timeouts and native tool calls, for a test that opts out of the production defaults (`production: false`) and says why. */
const TEST_DEFAULTS: Record<string, string> = {
  OPENAI_MODEL: 'gpt-4o-mini',
  OPENAI_TIMEOUT_MS: '5000',
  AGENT_PROTOCOL: 'native',
  TOOL_TIMEOUT_MS: '5000',
  RUN_TIMEOUT_MS: '30000',
  TOOL_OUTPUT_MAX_CHARS: '2000',
  KEYV_URL: 'memory:',
  HISTORY_TOKEN_BUDGET: '4000',
};

export interface Harness {
  fake: FakeDiscord;
  model: FakeOpenAIServer;
  app: App;
  config: Config;
  storage: Storage;
  close(options?: { keepFakes?: boolean }): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}, reuse?: { fake: FakeDiscord; model: FakeOpenAIServer }): Promise<Harness> {
  const fake = reuse?.fake ?? (await FakeDiscord.start({ log: () => undefined, ...options.fake }));
  const model = reuse?.model ?? (await FakeOpenAIServer.start());
  const testDefaults = options.production === false ? TEST_DEFAULTS : { ...productionDefaults(), KEYV_URL: 'memory:' };
  const config = loadConfig({ needDiscord: true, dotenvDir: false }, {
    ...testDefaults,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: model.baseURL,
    ...(options.maxRetries !== undefined ? { OPENAI_MAX_RETRIES: String(options.maxRetries) } : {}),
    // Retries keep the shipped count, but wait milliseconds rather than seconds: the fakes answer at once.
    OPENAI_MAX_RETRY_WAIT_MS: '20',
    ...(options.keyvUrl ? { KEYV_URL: options.keyvUrl } : {}),
    DISCORD_TOKEN: fake.token,
    DISCORD_API_BASE_URL: fake.apiUrl,
    DISCORD_MESSAGE_CONTENT: String(options.messageContent ?? true),
    WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php',
    HTTP_USER_AGENT: 'threadwise-test',
    ...(typeof options.env === 'function' ? options.env(fake) : options.env),
  });
  // Registered as `npm run deploy-commands` does without DISCORD_GUILD_ID: Discord offers no others.
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  const toolRuns = options.toolRuns;
  const app = await startApp(config, silentLogger(), {
    storage: options.storage,
    queue: { maxWaitMs: 20_000 },
    stepLogIntervalMs: options.stepLogIntervalMs ?? 50,
    ...(options.followUpBatch ? { followUpBatch: options.followUpBatch } : {}),
    attachmentOrigins: [fake.cdnUrl],
    tools: toolRuns ? (tools) => tools.map((t) => (toolRuns[t.name] ? { ...t, run: toolRuns[t.name]! } : t)) : undefined,
    // The fake serves attachments from its own 127.0.0.1 CDN: tell the bot that is Discord's.
    knowledge: { cdnOrigins: [fake.cdnUrl], ...options.knowledge },
    ...(options.allowLoopbackUrls ? { toolbox: { readUrl: { allowLoopbackForTests: true } } } : {}),
    ...(options.schedulerClock ? { schedulerClock: options.schedulerClock } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    fake,
    model,
    app,
    config,
    storage: app.storage,
    async close(closeOptions = {}) {
      await app.stop();
      if (!closeOptions.keepFakes) {
        await fake.close();
        await model.close();
      }
    },
  };
}
