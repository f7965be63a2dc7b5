/**
 * `npm run console`: the web console alone, over the same shared storage as the bot (with shards, or
 * to restart it apart from the bot). It asks Discord with the bot's token through @discordjs/rest (the
 * REST proxy when DISCORD_REST_PROXY names one), lists the bot's own tools (not those of MCP servers,
 * which run in the bot's process), and cannot decide approvals: a decision resumes a run, which happens
 * in the process that holds the server, so waiting calls are decided with their buttons in Discord.
 */
import { REST } from 'discord.js';
import { loadConfigOrReport } from '../src/config.js';
import { restDiscord } from '../src/console/discord-reads.js';
import { describeError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { CLAIM_TIMING, createStorage, type StorageEvent } from '../src/state/index.js';
import { createToolbox } from '../tools/index.js';
import { openConsole } from './console.js';
import { buildRules, LogChannelPosts, Teardown } from './parts.js';

async function main(): Promise<number> {
  const config = loadConfigOrReport({ needDiscord: true, needModel: false });
  if (!config) return 1;
  if (!config.console) {
    console.error('The console is off: set CONSOLE_PORT (with CONSOLE_PUBLIC_URL, DISCORD_CLIENT_SECRET and CONSOLE_SESSION_SECRET; see docs/console.md).');
    return 1;
  }
  const logger = createLogger(config.logLevel);
  const teardown = new Teardown();
  try {
    const storage = await createStorage(config.storage, { logger: (event: StorageEvent) => logger[event.level](event, event.message) });
    teardown.add(() => storage.close());
    // Read only: the overview's counters (no claims are taken here).
    const limiter = await storage.openUsageLimiter({ prices: config.governance.prices, leaseMs: CLAIM_TIMING.leaseMs });
    const proxy = typeof config.ops.restProxy === 'object' ? config.ops.restProxy.url : undefined;
    const rest = new REST({ api: proxy ?? config.discord!.apiBaseUrl?.replace(/\/+$/, '') ?? 'https://discord.com/api', ...(proxy ? { timeout: 60_000 } : {}) }).setToken(config.discord!.token);
    teardown.add(() => {
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    });
    // The tools' definitions only: their workers start on first use, which never comes here.
    const toolbox = createToolbox({ wikipediaApiUrl: config.tools.wikipediaApiUrl, userAgent: config.tools.userAgent, memory: storage.memberMemory, webSearch: config.tools.webSearch });
    teardown.add(() => toolbox.close());
    const logChannel = new LogChannelPosts(logger);
    logChannel.connectedRest(rest);
    const now = () => new Date();
    const rules = buildRules(config, { storage, core: { defaultModel: config.model.model, engine: { tools: toolbox.tools } }, logChannel, now, logger });
    const scheduleClaims = await storage.openScheduleClaims();
    const running = await openConsole(config, {
      storage,
      rules: { ...rules, tools: toolbox.tools, serverModels: async () => [] },
      limiter,
      discord: restDiscord(rest),
      // The scheduler of the process that holds a server sees a change at its next tick.
      schedules: { store: storage.schedules, now: () => Date.now(), changed: () => undefined, forget: (key) => scheduleClaims.forget(key), rules, logger },
      messageContent: config.discord!.messageContent,
      logger,
      now,
    });
    teardown.add(() => running?.close());
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    return 0;
  } catch (error) {
    console.error(`Could not start the console: ${describeError(error)}`);
    return 1;
  } finally {
    await teardown.run();
  }
}

main().then((code) => process.exit(code), (error) => {
  console.error(`Unexpected failure: ${describeError(error)}`);
  process.exit(1);
});
