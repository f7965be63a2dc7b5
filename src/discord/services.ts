/**
 * What the Discord layer is given by the composition root (`app/app.ts`): built once per process from
 * the configuration, passed in, never pulled from module state. Commands take only the members they
 * use (`Pick<BotServices, …>`), so each one says what it depends on.
 */
import type { ToolDefinition } from '../agent/tool.js';
import type { Logger } from '../logger.js';
import type { AllowedTools, ChannelSettings, RunScope } from '../policy/index.js';
import type { ConversationStore, GuildSettingsStore, ThreadQueue, UsageLimiter, UsageLimits } from '../state/index.js';
import type { PendingAsks } from './pending-asks.js';
import type { RunRegistry } from './run-registry.js';
import type { Turns } from './turns.js';

export interface BotServices {
  /** The one way a turn starts: `/ask`, follow-ups and buttons all go through it. */
  turns: Turns;
  /** Runs going on now (the Stop button, shutdown). */
  runs: RunRegistry;
  /** One job at a time per thread (turns, and `/reset` waiting for a run to finish). */
  queue: ThreadQueue;
  conversations: ConversationStore;
  guildSettings: GuildSettingsStore;
  /** Every tool the bot has. */
  tools: readonly ToolDefinition[];
  /** The tools a run in this scope may use now. */
  allowedTools: AllowedTools;
  /** What a run in this scope gets: display level and step limit (defaults if settings cannot be read). */
  channelSettings(scope: RunScope): Promise<ChannelSettings>;
  /** The bot's own step limit (AGENT_MAX_STEPS), for moderators' messages. */
  defaultMaxSteps: number;
  /** Usage counters and limits (`/usage`), and the environment's limits every server starts from. */
  limiter: UsageLimiter;
  defaultLimits: UsageLimits;
  /** Messages people are asking about while they type their question ("Ask about this message"). */
  pendingAsks: PendingAsks;
  /** Whether the bot reads every message in its threads (the Message Content intent). */
  messageContent: boolean;
  logger: Logger;
  now: () => Date;
}
