/**
 * The web console's parts, wired from what the composition root already built: in the bot's process
 * (`startApp`, when CONSOLE_PORT is set) over the bot's own rules, usage limiter, schedules and turn
 * pipeline, with the client's caches and REST; alone (`npm run console`, console-main.ts) over the same
 * shared storage and Discord's REST with the bot token. Either way it reads and writes only through the
 * rules object, and decides approvals only through the pipeline.
 */
import type { Client } from 'discord.js';
import type { Config, ConsoleConfig } from '../src/config.js';
import { createConsoleApprovals } from '../src/console/approvals.js';
import type { ConsoleDeps, ConsoleRules } from '../src/console/context.js';
import type { ConsoleDiscord } from '../src/console/discord-reads.js';
import { startConsole, type RunningConsole } from '../src/console/server.js';
import type { ScheduleChangeDeps } from '../src/discord/schedules/schedule-changes.js';
import type { Turns } from '../src/discord/turn/pipeline.js';
import type { Logger } from '../src/logger.js';
import type { Storage, UsageLimiter } from '../src/state/index.js';

/** What the console is made of, from the composition root. */
export interface ConsoleParts {
  storage: Pick<Storage, 'consoleSessions' | 'waitingTurns'>;
  rules: ConsoleRules;
  limiter: Pick<UsageLimiter, 'guildHistory'>;
  discord: ConsoleDiscord;
  schedules: ScheduleChangeDeps;
  /** The pipeline and the bot's client, in the bot's process: approvals can be decided. */
  live?: { turns: Pick<Turns, 'decide'>; client: () => Client<true> };
  messageContent: boolean;
  logger: Logger;
  now: () => Date;
}

/** The console's dependencies from its parts. */
export function consoleDeps(config: ConsoleConfig, apiBaseUrl: string | undefined, parts: ConsoleParts): ConsoleDeps {
  const { rules } = parts;
  return {
    config,
    apiBaseUrl,
    discord: parts.discord,
    sessions: parts.storage.consoleSessions,
    rules,
    usage: parts.limiter,
    schedules: parts.schedules,
    approvals: createConsoleApprovals({
      store: parts.storage.waitingTurns,
      live: parts.live,
      decisions: async (guildId) => (await rules.auditPage(guildId, { action: 'tools.approval', limit: 200 })).entries,
    }),
    messageContent: parts.messageContent,
    logger: parts.logger.child({ part: 'console' }),
    now: parts.now,
  };
}

/** Start the console when CONSOLE_PORT is set (in a shard process it is not: the manager's `npm run console` serves every shard's servers). */
export async function openConsole(config: Config, parts: ConsoleParts): Promise<RunningConsole | undefined> {
  if (!config.console || config.ops.shard) return undefined;
  const running = await startConsole(consoleDeps(config.console, config.discord?.apiBaseUrl, parts));
  parts.logger.info({ console: config.console.publicUrl, listening: running.url }, 'the web console is up');
  return running;
}
