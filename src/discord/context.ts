/**
 * Everything the Discord layer needs, passed in (never pulled from module singletons), so tests build
 * it from fakes and `main.ts` from the real configuration.
 */
import type { AgentConfig, DiscordConfig, StorageConfig } from '../config.js';
import type { ToolDefinition } from '../agent/tool.js';
import type { ChatModel } from '../agent/types.js';
import type { Logger } from '../logger.js';
import type { Storage, ThreadQueue } from '../state/index.js';
import type { RunRegistry } from './run-registry.js';

/** Where a run happens and who started it: what tool policy is decided from. */
export interface RunScope {
  guildId: string | null;
  /** The channel the thread lives in (or the channel itself outside threads). */
  channelId: string;
  /** The category of that channel, if any. */
  categoryId: string | null;
  userId: string;
  roleIds: readonly string[];
}

export interface BotContext {
  agent: AgentConfig;
  storageConfig: Pick<StorageConfig, 'historyTokenBudget'>;
  discord: Pick<DiscordConfig, 'messageContent'>;
  model: ChatModel;
  tools: readonly ToolDefinition[];
  storage: Storage;
  queue: ThreadQueue;
  runs: RunRegistry;
  logger: Logger;
  /** The tools a run in this scope may use now; asked again before every step. */
  allowedTools(scope: RunScope): Promise<ReadonlySet<string>>;
  /** Fewest milliseconds between edits of a step-log message. */
  stepLogIntervalMs: number;
  now: () => Date;
  /** Options passed to every run (tests inject fetch and clocks here). */
  runOptions?: { fetch?: typeof fetch };
}
