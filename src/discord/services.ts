/**
 * What the Discord layer is given by the composition root (`app/app.ts`): built once per process from
 * the configuration, passed in, never pulled from module state. Commands take only the members they
 * use (`Pick<BotServices, …>`), so each one says what it depends on.
 */
import type { ToolDefinition } from '../agent/tool.js';
import type { DocumentInput, KnowledgeBase } from '../knowledge/index.js';
import type { Logger } from '../logger.js';
import type { ChannelDefaults } from '../policy/index.js';
import type { ConversationStore, GuildSettingsStore, ThreadQueue, UsageLimiter, UsageLimits } from '../state/index.js';
import type { AttachmentLoader } from './attachment-document.js';
import type { ApprovalRegistry } from './approvals.js';
import type { PendingAsks } from './pending-asks.js';
import type { RunRegistry } from './run-registry.js';
import type { Turns } from './turn/pipeline.js';
import type { Rules } from './rules.js';

export interface BotServices {
  /** The one way a turn starts: `/ask`, follow-ups and buttons all go through it. */
  turns: Turns;
  /** Runs going on now (the Stop button, shutdown). */
  runs: RunRegistry;
  /** Tool calls waiting for Approve or Deny. */
  approvals: ApprovalRegistry;
  /** One job at a time per thread (turns, and `/reset` waiting for a run to finish). */
  queue: ThreadQueue;
  conversations: ConversationStore;
  guildSettings: GuildSettingsStore;
  /** Every tool the bot has. */
  tools: readonly ToolDefinition[];
  /** The tools a run in this scope may use now. */
  /** The rules of each place: the member's limits, the channel's settings, the tools allowed, approvals. */
  rules: Rules;
  /** The bot's own step limit, model and the models moderators may choose, for what nobody set. */
  channelDefaults: ChannelDefaults;
  /** The models the model server lists (for choosing one when OPENAI_MODELS is `*`). */
  serverModels(): Promise<string[]>;
  /** Usage counters and limits (`/usage`), and the environment's limits every server starts from. */
  limiter: UsageLimiter;
  defaultLimits: UsageLimits;
  /** Messages people are asking about while they type their question ("Ask about this message"). */
  pendingAsks: PendingAsks;
  /** Whether the bot reads every message in its threads (the Message Content intent). */
  messageContent: boolean;
  /** The servers' documents (`/kb`, "Add to knowledge base"); undefined when the knowledge base is off. */
  knowledge?: KnowledgeServices;
  logger: Logger;
  now: () => Date;
}

/** What the knowledge base commands use. */
export interface KnowledgeServices {
  /** Adding or removing through it also tells the tool policy at once whether to offer `search_knowledge`. */
  base: KnowledgeBase;
  /** A file attached to the command, from Discord's CDN (type, size and host checked). */
  fromAttachment: AttachmentLoader;
  /** A web page, through `read_url`'s fetcher and address rules. */
  fromUrl(url: string, signal?: AbortSignal): Promise<DocumentInput>;
}
