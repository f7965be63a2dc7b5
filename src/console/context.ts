/**
 * What the console is built from (the composition root hands it over: in the bot's process, or alone
 * with `npm run console`), and what a request carries once the guard has checked it. The console reads
 * and changes guild settings only through the rules object, like the commands.
 */
import type { Context } from 'hono';
import type { ConsoleConfig } from '../config.js';
import type { RuleServices } from '../discord/services.js';
import type { ScheduleChangeDeps } from '../discord/schedules/schedule-changes.js';
import type { Logger } from '../logger.js';
import type { ConsoleSessionStore, UsageLimiter } from '../state/index.js';
import type { ConsoleApprovals } from './approvals.js';
import type { ConsoleDiscord } from './discord-reads.js';
import type { GuildAccess } from './rights.js';
import type { ActiveSession } from './sessions.js';

/** The rules object as the console uses it: reads for display, named writes that audit themselves. */
export type ConsoleRules = Pick<
  RuleServices,
  'snapshot' | 'auditPage' | 'setToolMode' | 'repinTool' | 'setApproval' | 'setDisplay' | 'setModel' | 'setPersona' | 'setAnswers' | 'setMemory' | 'setScheduleAccess' | 'recordAction' | 'tools' | 'channelDefaults' | 'serverModels' | 'outside'
>;

export interface ConsoleDeps {
  config: ConsoleConfig;
  /** DISCORD_API_BASE_URL: where the authorize page, the token URL and the member's reads are. */
  apiBaseUrl?: string;
  /** Discord as the bot sees it (servers, channels, members now). */
  discord: ConsoleDiscord;
  sessions: ConsoleSessionStore;
  rules: ConsoleRules;
  usage: Pick<UsageLimiter, 'guildHistory'>;
  /** Scheduled questions: the store and what a change wakes. */
  schedules: ScheduleChangeDeps;
  approvals: ConsoleApprovals;
  /** Whether the bot reads every message (answers `always` needs it). */
  messageContent: boolean;
  logger: Logger;
  now: () => Date;
}

/** What the guard puts on a request it let through. */
export type ConsoleEnv = {
  Variables: {
    active: ActiveSession;
    csrf: string;
    access: GuildAccess;
    /** The name the audit log keeps for the member acting (their server nickname, else their Discord name). */
    actorName: string;
  };
};

export type ConsoleContext = Context<ConsoleEnv>;
