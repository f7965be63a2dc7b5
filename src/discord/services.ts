/**
 * What the Discord layer is given by the composition root (`app/app.ts`): built once per process from
 * the configuration, passed in, never pulled from module state. Six groups, one per concern:
 *
 * - `turns`: starting a turn and everything a turn in flight touches (runs, turns waiting for approval,
 *   the thread's queue and memory, what members asked the bot to remember and past-thread search,
 *   questions being typed, the answers kept with their votes). Member memory sits here, beside each thread's memory, because it is the same
 *   concern (what the bot remembers, which a turn reads and writes) and `/reset` must clear both together;
 * - `rules`: the rules of each place, the one door to the settings moderators edit (read for display,
 *   changed through named writes that audit themselves), the tools, and the server's skills (its own
 *   commands, written by its moderators: instructions and a narrower tool set);
 * - `usage`: the usage counters and the limits every server starts from;
 * - `knowledge`: the servers' documents (absent when the knowledge base is off);
 * - `schedules`: scheduled questions, their caps, running one by hand, and the scheduler's clock;
 * - `runtime`: the logger, the clock and what the gateway connection allows.
 *
 * Commands take only the groups and members they use (`{ rules: Pick<RuleServices, 'setLimits'> }`), so
 * each one says what it depends on.
 */
import type { ToolDefinition } from '../agent/tool.js';
import type { DocumentInput, KnowledgeBase } from '../knowledge/index.js';
import type { Client } from 'discord.js';
import type { Logger } from '../logger.js';
import type { ChannelDefaults, ScheduleCaps } from '../policy/index.js';
import type { ConversationStore, FeedbackStore, MemberMemoryStore, OccurrenceMark, Schedule, ScheduleStore, SkillStore, ThreadQueue, UsageLimiter, UsageLimits } from '../state/index.js';
import type { ThreadIndex } from '../knowledge/thread-index/index.js';
import type { ScheduledRun } from './schedules/schedule-runner.js';
import type { ScheduledPlace } from './turn/origin.js';
import type { AttachmentLoader, AttachmentRef } from './files/attachment-document.js';
import type { SkillCatalog } from './skills/skill-catalog.js';
import type { SkillCommands } from './skills/skill-commands.js';
import type { PendingAsks } from './pending-asks.js';
import type { OneTimeClaims } from './runs/one-time-claims.js';
import type { RunRegistry } from './runs/run-registry.js';
import type { Turns } from './turn/pipeline.js';
import type { Rules } from './rules/rules.js';

export interface BotServices {
  turns: TurnServices;
  rules: RuleServices;
  usage: UsageServices;
  /** Undefined when the knowledge base is off. */
  knowledge?: KnowledgeServices;
  schedules: ScheduleServices;
  runtime: Runtime;
}

/** The turn pipeline (`start`: the one way a turn starts; the turns waiting for approval), and what turns in flight touch. */
export interface TurnServices extends Turns {
  /** Runs going on now (the Stop button, shutdown). */
  runs: RunRegistry;
  /** One-time starts (a Continue button's message), however many clicks arrive. */
  claims: OneTimeClaims;
  /** One job at a time per thread (turns, and `/reset` waiting for a run to finish). */
  queue: ThreadQueue;
  /** Each thread's memory (and who started it). */
  conversations: ConversationStore;
  /** Messages people are asking about while they type their question ("Ask about this message"). */
  pendingAsks: PendingAsks;
  /** What members asked the bot to remember, and past-thread search (`/memory`, `/reset`, Forget buttons). */
  memory: MemoryServices;
  /** Answers with their 👍 and 👎 (the vote buttons, `/feedback`, `/reset`, `/memory export`). */
  feedback: FeedbackStore;
}

/** Memory that outlives a thread. */
export interface MemoryServices {
  /** Each member's notes per server (the tools, `/memory`, moderators' removals). */
  store: MemberMemoryStore;
  /** Past threads, indexed as they are saved; absent when the knowledge index's database is not there. */
  threads?: Pick<ThreadIndex, 'forget'>;
}

/** `at(scope)`: the rules of a place, read with every fallback decided (rules.ts); the settings shown and changed through it; the tools. */
export interface RuleServices extends Rules {
  /** Every tool the bot has (a getter: MCP servers add and change tools while the bot runs). */
  readonly tools: readonly ToolDefinition[];
  /** The bot's own step limit, model and the models moderators may choose, for what nobody set. */
  channelDefaults: ChannelDefaults;
  /** The models the model server lists (for choosing one when OPENAI_MODELS is `*`). */
  serverModels(): Promise<string[]>;
  /** Tools from MCP servers that are not offered and why, and the protection their processes run under (none configured: absent). */
  outside?: OutsideTools;
  /** The server's skills (issue 45). */
  skills: SkillServices;
}

/** Skills: each server's own (the store, with revisions), the operator's (SKILLS_DIR), and their guild commands. */
export interface SkillServices {
  catalog: SkillCatalog;
  store: SkillStore;
  commands: SkillCommands;
  /** The bot's own command names: no skill may take one. */
  builtIns: ReadonlySet<string>;
  /** Skills one server may have (SKILLS_MAX_PER_GUILD). */
  maxPerGuild: number;
  /** A SKILL.md attached to `/skill import`: its text, from Discord's CDN only, capped. Throws with a sentence for the member. */
  fromAttachment(attachment: AttachmentRef): Promise<string>;
}

/** What `/tools` says about MCP servers beyond their tools. */
export interface OutsideTools {
  refused(): ReadonlyArray<{ server: string; tool: string; reason: string }>;
  /** The servers not started because their sandbox cannot reach them, each with its one-line reason (which folder, the fixes). */
  blocked(): ReadonlyArray<{ server: string; reason: string }>;
  /** One sentence: how the servers' processes are kept from the bot's secrets (docs/tools-and-mcp.md). */
  protection(): string | undefined;
}

/** Usage counters and limits (`/usage`, `/settings limits`). */
export interface UsageServices {
  limiter: UsageLimiter;
  /** The environment's limits, every server's defaults (USER_RUNS_PER_HOUR and friends). */
  defaultLimits: UsageLimits;
}

/** What the knowledge base commands use. */
export interface KnowledgeServices {
  /** Adding or removing through it also tells the tool policy at once whether to offer `search_knowledge`. */
  base: KnowledgeBase;
  /** A file attached to the command, from Discord's CDN (type, size and host checked). */
  fromAttachment: AttachmentLoader;
  /** A web page, through `read_url`'s fetcher and address rules. */
  fromUrl(url: string, signal?: AbortSignal): Promise<DocumentInput>;
  /** How often `/kb add` edits its reply with the progress of a long file (ms). */
  progressEveryMs: number;
}

/** Scheduled questions (`/schedule`, `/settings schedules`). */
export interface ScheduleServices {
  /** Each guild's schedules. */
  store: ScheduleStore;
  /** The operator's caps and minimum interval (SCHEDULES_PER_SERVER, SCHEDULES_PER_MEMBER, SCHEDULE_MIN_INTERVAL_MINUTES). */
  caps: ScheduleCaps;
  /** How late a missed run may still be made (SCHEDULE_GRACE_MINUTES). */
  graceMinutes: number;
  /** The scheduler's clock, in milliseconds: what "now" is for next runs and resumes. */
  now(): number;
  /** Where these schedules stand (`guildId:id` keys): their last run. */
  marks(keys: readonly string[]): Promise<Map<string, OccurrenceMark>>;
  /** Forget a removed schedule's claims. */
  forget(key: string): Promise<void>;
  /** Run a schedule now, as its owner, with the checks of any run; `placed` is told where it posts. */
  runNow(client: Client, schedule: Schedule, placed?: (where: ScheduledPlace) => void): Promise<ScheduledRun>;
  /** A guild's schedules changed: the scheduler looks again at once. */
  changed(): void;
}

/** The process's logger and clock, and what its gateway connection allows. */
export interface Runtime {
  logger: Logger;
  now: () => Date;
  /** Whether the bot reads every message in its threads (the Message Content intent). */
  messageContent: boolean;
  /** Most earlier messages a question that replies to them takes along (REPLY_CHAIN_MAX_MESSAGES). */
  replyChainMax: number;
}
