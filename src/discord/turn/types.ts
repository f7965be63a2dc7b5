/**
 * The vocabulary of a turn: what starting one needs (TurnDeps, built once by the composition root) and a
 * person's message in it. Apart from pipeline.ts so the modules a turn uses (the runner, the batches) can
 * name them without importing the pipeline that imports them.
 */
import type { Engine } from '../../agent/engine.js';
import type { AgentEvent, ChatModel } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { RunScope } from '../../policy/index.js';
import type { Author, ConversationStore, GuildSettingsStore, LimitName, ThreadQueue, TokenCounter } from '../../state/index.js';
import type { AdmissionRules } from './admission.js';
import type { ApprovalRegistry } from './approvals.js';
import type { AttachmentReader, AttachmentRef } from '../files/attachments.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { Rules } from '../rules/rules.js';
import type { TurnMemory } from '../memory/turn-memory.js';

/** What starting a turn needs, by concern; built once by the composition root. */
export interface TurnDeps {
  engine: Engine;
  /** The client for the model a place uses (a channel's model setting, or the default). */
  modelFor(name: string): ChatModel;
  /** The checks before any model call: input, DMs, usage limits. */
  admission: AdmissionRules;
  /** The rules of each place: its limits, settings, the tools a run may use, approvals. */
  rules: Rules;
  /** One turn at a time per thread, and the runs going on now. */
  queue: ThreadQueue;
  runs: RunRegistry;
  /** Each thread's memory, and how much of the model's context it may take. */
  memory: {
    conversations: ConversationStore;
    /** Tokens a thread's history may take in the model's context (HISTORY_TOKEN_BUDGET). */
    historyTokenBudget: number;
    /** Counts the history's tokens (its cache lasts across turns). */
    tokenCounter: TokenCounter;
  };
  /** Memory that outlives a thread (member notes, past-thread search); absent: none. */
  memberMemory?: TurnMemory;
  /** How the thread shows a run: the fewest milliseconds between edits of a step-log message and of a streaming answer. */
  pacing: { stepLogIntervalMs: number; answerEditIntervalMs: number };
  /** Reads files attached to questions (images for vision models, text files); without it files get a note. */
  attachments?: AttachmentReader;
  /** Calls to tools in `ask` mode wait for a person (`/tools approval`). */
  approvals: {
    registry: ApprovalRegistry;
    timeoutMs: number;
    /** Where decisions are audited. */
    guildSettings: Pick<GuildSettingsStore, 'update'>;
  };
  /** How many waiting messages one turn takes; defaults in follow-up-batches.ts. */
  batch?: { maxMessages?: number; maxWaiting?: number };
  /** Who watches turns (metrics, traces); each is optional. */
  observers?: TurnObservers;
  logger: Logger;
  now: () => Date;
}

/** What metrics and traces see of turns. */
export interface TurnObservers {
  /** Sees every engine event of every turn, with where it happened. */
  onEvent?: (event: AgentEvent, scope: RunScope) => void;
  /**
   * Runs each turn inside a trace of its own (traces on): everything the turn does, its Discord
   * calls included, happens in `body`'s context.
   */
  traceRun?: <T>(place: { guildId: string | null; channelId: string; threadId?: string }, body: () => Promise<T>) => Promise<T>;
  /** Told when a usage limit refuses a request. */
  onLimitRefusal?: (limit: LimitName) => void;
}

/** One person's message in a turn. */
export interface TurnMessage {
  author: Author;
  text: string;
  /** Files that came with the message, read for the model when the turn runs. */
  attachments?: readonly AttachmentRef[];
  /** Text the question is about (the message behind "Ask about this message"), put after it. */
  context?: string;
}

/** A person's message that should start a turn. */
export interface TurnRequest extends TurnMessage {
  scope: RunScope;
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
  /** The bot's message that announced the turn (the /ask reply): edited after a crash to say the run was interrupted. */
  reply?: { channelId: string; messageId: string };
}

