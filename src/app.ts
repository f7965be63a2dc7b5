/**
 * Puts the bot together from the configuration: storage, tools, model client, tool policy, Discord.
 * `main.ts` runs it as a process; tests can start it with their own fakes behind the same config.
 */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { OpenAIChatModel } from './llm/openai-model.js';
import { createStorage, ThreadQueue, type StorageEvent } from './state/index.js';
import { createToolbox } from '../tools/index.js';
import { RunRegistry } from './discord/run-registry.js';
import { startBot, type RunningBot } from './discord/bot.js';
import type { BotContext } from './discord/context.js';
import { createToolPolicy } from './policy/index.js';

export interface App {
  bot: RunningBot;
  /** Stop runs (each says it was interrupted), disconnect, close the calculator and storage. */
  stop(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<App> {
  if (!config.discord) throw new Error('startApp needs the Discord configuration');
  const storage = await createStorage(config.storage, { logger: (event: StorageEvent) => logger[event.level](event, event.message) });
  const toolbox = createToolbox({
    wikipediaApiUrl: config.tools.wikipediaApiUrl,
    userAgent: config.tools.userAgent,
    calculator: { workers: config.tools.calculatorWorkers },
  });
  const ctx: BotContext = {
    agent: config.agent,
    storageConfig: config.storage,
    discord: config.discord,
    model: new OpenAIChatModel(config.model),
    tools: toolbox.tools,
    storage,
    queue: new ThreadQueue(),
    runs: new RunRegistry(),
    logger,
    allowedTools: createToolPolicy(storage.guildSettings, toolbox.tools, logger),
    stepLogIntervalMs: 1200,
    now: () => new Date(),
  };
  let bot: RunningBot;
  try {
    bot = await startBot(ctx, { token: config.discord.token, apiBaseUrl: config.discord.apiBaseUrl });
  } catch (error) {
    await toolbox.close();
    await storage.close();
    throw error;
  }
  logger.info({ storage: storage.where, model: config.model.model, baseURL: config.model.baseURL ?? 'OpenAI' }, 'threadwise is running');
  return {
    bot,
    async stop() {
      await bot.stop();
      await toolbox.close();
      await storage.close();
    },
  };
}
