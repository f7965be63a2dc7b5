/**
 * An end-to-end bot for tests: the real discord.js client against the fake Discord, the real openai
 * SDK against the fake model server, the real tools and storage (in memory unless a URL is given).
 */
import { FakeDiscord, type FakeDiscordOptions } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { createStorage, ThreadQueue, type Storage } from '../../src/state/index.js';
import { createToolbox, defaultEnabled, type Toolbox } from '../../tools/index.js';
import { RunRegistry } from '../../src/discord/run-registry.js';
import { startBot, type RunningBot } from '../../src/discord/bot.js';
import type { BotContext } from '../../src/discord/context.js';
import { silentLogger } from '../../src/logger.js';
import { commands } from '../../commands/index.js';

export interface HarnessOptions {
  fake?: FakeDiscordOptions;
  messageContent?: boolean;
  keyvUrl?: string;
  storageDir?: string;
  maxRetries?: number;
  stepLogIntervalMs?: number;
  /** Replace the default tool policy. */
  allowedTools?: BotContext['allowedTools'];
  /** Build the tool policy over the harness's own storage and tools (e.g. the real createToolPolicy). */
  policy?: (storage: Storage, tools: BotContext['tools']) => BotContext['allowedTools'];
  /** Let the bot start with a given storage (restart tests). */
  storage?: Storage;
}

export interface Harness {
  fake: FakeDiscord;
  model: FakeOpenAIServer;
  ctx: BotContext;
  bot: RunningBot;
  toolbox: Toolbox;
  close(options?: { keepFakes?: boolean }): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}, reuse?: { fake: FakeDiscord; model: FakeOpenAIServer }): Promise<Harness> {
  const fake = reuse?.fake ?? (await FakeDiscord.start({ log: () => undefined, ...options.fake }));
  const model = reuse?.model ?? (await FakeOpenAIServer.start());
  const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'threadwise-test' });
  const storage = options.storage ?? (await createStorage({ keyvUrl: options.keyvUrl ?? 'memory:', historyTokenBudget: 4000 }, { baseDir: options.storageDir }));
  const defaults = new Set(toolbox.tools.filter(defaultEnabled).map((t) => t.name));
  const ctx: BotContext = {
    agent: { protocol: 'native', maxSteps: 8, toolTimeoutMs: 5_000, runTimeoutMs: 30_000, toolOutputMaxChars: 2_000 },
    storageConfig: { historyTokenBudget: 4000 },
    discord: { messageContent: options.messageContent ?? true },
    model: new OpenAIChatModel({ apiKey: 'k', baseURL: model.baseURL, model: 'gpt-4o-mini', timeoutMs: 5_000, maxRetries: options.maxRetries ?? 0, maxRetryWaitMs: 20 }),
    tools: toolbox.tools,
    storage,
    queue: new ThreadQueue({ maxWaitMs: 20_000 }),
    runs: new RunRegistry(),
    logger: silentLogger(),
    allowedTools: options.allowedTools ?? options.policy?.(storage, toolbox.tools) ?? (async () => defaults),
    stepLogIntervalMs: options.stepLogIntervalMs ?? 50,
    now: () => new Date(),
  };
  // Discord only lets people run registered commands: register them globally, as `deploy-commands` does without DISCORD_GUILD_ID.
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  const bot = await startBot(ctx, { token: fake.token, apiBaseUrl: fake.apiUrl });
  return {
    fake,
    model,
    ctx,
    bot,
    toolbox,
    async close(closeOptions = {}) {
      await bot.stop();
      await toolbox.close();
      await storage.close();
      if (!closeOptions.keepFakes) {
        await fake.close();
        await model.close();
      }
    },
  };
}
