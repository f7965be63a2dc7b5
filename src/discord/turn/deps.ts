/**
 * What starting a turn needs, by concern: built once by the composition root and handed to the
 * pipeline (pipeline.ts), which hands each step what it uses.
 */
import type { Engine } from '../../agent/engine.js';
import type { AgentEvent, ChatModel } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { ChangeRecord, RunScope } from '../../policy/index.js';
import type { ConversationStore, FeedbackStore, LimitName, SkillStore, ThreadQueue, TokenCounter, WaitingTurnStore } from '../../state/index.js';
import type { AttachmentReader } from '../files/attachments.js';
import type { TurnMemory } from '../memory/turn-memory.js';
import type { Rules } from '../rules/rules.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { AdmissionRules } from './claim.js';

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
  /** Which skill each skill thread runs (its follow-ups keep it); absent: no skills. */
  skills?: Pick<SkillStore, 'threadSkill' | 'rememberThread'>;
  /** Memory that outlives a thread (member notes, past-thread search); absent: none. */
  memberMemory?: TurnMemory;
  /**
   * Where answers members may rate are kept (👍 👎 under every answer in a server), and a deleted
   * question's text is removed from them; absent: no vote buttons.
   */
  feedback?: Pick<FeedbackStore, 'save' | 'remove' | 'forgetMessage'>;
  /** How the thread shows a run: the fewest milliseconds between edits of a step-log message and of a streaming answer. */
  pacing: { stepLogIntervalMs: number; answerEditIntervalMs: number };
  /** Reads files attached to questions (images for vision models, text files); without it files get a note. */
  attachments?: AttachmentReader;
  /** Calls to tools in `ask` mode stop the run until a person decides (`/tools approval`). */
  approvals: {
    /** Where waiting turns are kept (the shared storage). */
    store: WaitingTurnStore;
    /** How long a turn waits before it ends with a note (APPROVAL_TIMEOUT_MS). */
    timeoutMs: number;
    /** The audit writer: each decision goes into the guild's audit log and log channel. */
    audit(guildId: string, record: ChangeRecord): Promise<void>;
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
