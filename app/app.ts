/**
 * The composition root: the only place that knows every part. It builds storage, the engine and its
 * tools, the tool policy, the turn starter and the Discord client from the configuration, and hands
 * the command list to the bot. `npm start` runs it as a process; the end-to-end tests start the same
 * thing against the fake Discord and the fake model server, with a few `AppOverrides`.
 */
import { commands } from '../commands/index.js';
import type { Config } from '../src/config.js';
import { createCore, type CoreOverrides } from '../src/core.js';
import { startBot, type RunningBot } from '../src/discord/bot.js';
import { RunRegistry } from '../src/discord/run-registry.js';
import type { BotServices } from '../src/discord/services.js';
import { createTurns } from '../src/discord/turns.js';
import type { Logger } from '../src/logger.js';
import { channelSettings, createToolPolicy, defaultChannelSettings, offerOnlyWhere, type RunScope } from '../src/policy/index.js';
import { createStorage, ThreadQueue, tokenCounters, type Storage, type StorageEvent, type ThreadQueueOptions } from '../src/state/index.js';
import { openAppKnowledge, type AppKnowledge, type KnowledgeOverrides } from './knowledge.js';

/** What tests replace: everything else comes from the configuration, as under `npm start`. */
export interface AppOverrides extends CoreOverrides {
  /** An already open storage (a restart test keeps its data); closed by `stop` all the same. */
  storage?: Storage;
  queue?: ThreadQueueOptions;
  /** Fewest milliseconds between edits of a step-log message (default 1,200). */
  stepLogIntervalMs?: number;
  /** Fewest milliseconds between edits of a streaming answer (default 1,000). */
  answerEditIntervalMs?: number;
  now?: () => Date;
  /** Tests only: the fake Discord's CDN, and how long "has documents" is cached. */
  knowledge?: KnowledgeOverrides;
}

export interface App {
  bot: RunningBot;
  services: BotServices;
  storage: Storage;
  /** The knowledge base, when it is on. */
  knowledge?: AppKnowledge;
  /** Stop runs (each says it was interrupted), disconnect, close the calculator, knowledge base and storage. */
  stop(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  if (!config.discord) throw new Error('startApp needs the Discord configuration');
  const storage = overrides.storage ?? (await createStorage(config.storage, { logger: (event: StorageEvent) => logger[event.level](event, event.message) }));
  let knowledge: AppKnowledge | undefined;
  try {
    knowledge = await openAppKnowledge(config, logger, { ...overrides.knowledge, readUrl: overrides.toolbox?.readUrl });
  } catch (error) {
    await storage.close();
    throw error;
  }
  const core = createCore(config, overrides, { knowledge: knowledge?.services.base });
  const now = overrides.now ?? (() => new Date());
  const defaultMaxSteps = config.agent.maxSteps;
  const policy = createToolPolicy(storage.guildSettings, core.engine.tools, logger);
  // search_knowledge is offered only in a server that has documents; the answer is cached (see DocumentPresence).
  const allowedTools = knowledge ? offerOnlyWhere(policy, 'search_knowledge', knowledge.presence.has, logger) : policy;
  const queue = new ThreadQueue(overrides.queue);
  const runs = new RunRegistry();

  async function settingsFor(scope: RunScope) {
    if (!scope.guildId) return defaultChannelSettings(defaultMaxSteps);
    try {
      return channelSettings(await storage.guildSettings.get(scope.guildId), scope, defaultMaxSteps);
    } catch (error) {
      logger.warn({ err: error, guildId: scope.guildId }, 'could not read guild settings; using defaults');
      return defaultChannelSettings(defaultMaxSteps);
    }
  }

  const services: BotServices = {
    turns: createTurns({
      engine: core.engine,
      conversations: storage.conversations,
      queue,
      runs,
      allowedTools,
      channelSettings: settingsFor,
      historyTokenBudget: config.storage.historyTokenBudget,
      tokenCounter: tokenCounters()(config.model.model),
      stepLogIntervalMs: overrides.stepLogIntervalMs ?? 1_200,
      answerEditIntervalMs: overrides.answerEditIntervalMs ?? 1_000,
      logger,
      now,
    }),
    runs,
    queue,
    conversations: storage.conversations,
    guildSettings: storage.guildSettings,
    tools: core.engine.tools,
    allowedTools,
    channelSettings: settingsFor,
    defaultMaxSteps,
    messageContent: config.discord.messageContent,
    knowledge: knowledge?.services,
    logger,
    now,
  };

  let bot: RunningBot;
  try {
    bot = await startBot(services, { token: config.discord.token, apiBaseUrl: config.discord.apiBaseUrl, commands });
  } catch (error) {
    await core.close();
    await knowledge?.close();
    await storage.close();
    throw error;
  }
  logger.info(
    { storage: storage.where, knowledge: knowledge?.services.base.where ?? 'off', model: config.model.model, baseURL: config.model.baseURL ?? 'OpenAI' },
    'threadwise is running',
  );
  return {
    bot,
    services,
    storage,
    knowledge,
    async stop() {
      await bot.stop();
      await core.close();
      await knowledge?.close();
      await storage.close();
    },
  };
}
