/**
 * The one way a turn starts, for `/ask`, follow-ups and buttons alike. In two stages, because `/ask`
 * must refuse a request (an ephemeral reply within Discord's 3 seconds, no thread, no model call)
 * before it opens a thread:
 *
 *   const admission = await turns.admit({ scope, author, text, logFields });
 *   if (!admission.ok) return refuse(admission.message);
 *   ...open the thread...
 *   const outcome = await admission.turn.run(threadTarget(thread));
 *
 * `run` waits its turn in the thread's queue, reads the channel's settings, then runs the engine.
 */
import type { Engine } from '../agent/engine.js';
import type { AgentEvent, ChatModel } from '../agent/types.js';
import type { Logger } from '../logger.js';
import type { AllowedTools, ApprovalMode, ChannelSettings, RunScope } from '../policy/index.js';
import type { ApprovalRegistry } from './approvals.js';
import { ThreadBusyError, type Author, type ConversationStore, type ThreadQueue, type GuildSettingsStore, type LimitName, type TokenCounter, type UsageTicket } from '../state/index.js';
import { decide, type AdmissionRules } from './admission.js';
import type { AttachmentReader, AttachmentRef } from './attachments.js';
import type { RunRegistry } from './run-registry.js';
import { runTurn, type TurnOutcome } from './thread-turn.js';
import type { TurnTarget } from './turn-target.js';

/** What starting a turn needs; built once by the composition root. */
export interface TurnDeps {
  engine: Engine;
  /** The checks before any model call: input, DMs, usage limits. */
  admission: AdmissionRules;
  /** The client for the model a place uses (a channel's model setting, or the default). */
  modelFor(name: string): ChatModel;
  conversations: ConversationStore;
  queue: ThreadQueue;
  runs: RunRegistry;
  allowedTools: AllowedTools;
  channelSettings(scope: RunScope): Promise<ChannelSettings>;
  /** Tokens a thread's history may take in the model's context (HISTORY_TOKEN_BUDGET). */
  historyTokenBudget: number;
  /** Counts the history's tokens (its cache lasts across turns). */
  tokenCounter: TokenCounter;
  /** Fewest milliseconds between edits of a step-log message. */
  stepLogIntervalMs: number;
  /** Fewest milliseconds between edits of a streaming answer (about one a second). */
  answerEditIntervalMs: number;
  logger: Logger;
  now: () => Date;
  /** Reads files attached to questions (images for vision models, text files); without it files get a note. */
  attachments?: AttachmentReader;
  /** Sees every engine event of every turn, with where it happened (metrics). */
  onEvent?: (event: AgentEvent, scope: RunScope) => void;
  /**
   * Runs each turn inside a trace of its own (traces on): everything the turn does, its Discord
   * calls included, happens in `body`'s context.
   */
  traceRun?: <T>(place: { guildId: string | null; channelId: string; threadId?: string }, body: () => Promise<T>) => Promise<T>;
  /** Told when a usage limit refuses a request (metrics). */
  onLimitRefusal?: (limit: LimitName) => void;
  /** Calls to tools in `ask` mode wait for a person (`/tools approval`). */
  approvals: {
    registry: ApprovalRegistry;
    timeoutMs: number;
    /** Whether calls to `tool` wait for approval in `scope`, read at each call. */
    modeOf(scope: RunScope, tool: string): Promise<ApprovalMode>;
    /** Where decisions are audited. */
    guildSettings: Pick<GuildSettingsStore, 'update'>;
  };
}

/** A person's message that should start a turn. */
export interface TurnRequest {
  scope: RunScope;
  author: Author;
  text: string;
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
  /** Files that came with the message, read for the model when the turn runs. */
  attachments?: readonly AttachmentRef[];
  /** Text the question is about (the message behind "Ask about this message"), put after it. */
  context?: string;
  /** The bot's message that announced the turn (the /ask reply): edited after a crash to say the run was interrupted. */
  reply?: { channelId: string; messageId: string };
}

/** A turn that may go ahead: run it (always, or cancel it) once its target exists. */
export interface AdmittedTurn {
  /** The message as it will be answered: cleaned of invisible and spoofing characters. */
  readonly text: string;
  /** `reply`: the message that announced the turn, once it exists (the /ask reply), for the run journal. */
  run(target: TurnTarget, options?: { reply?: TurnRequest['reply'] }): Promise<TurnOutcome>;
  /** Give the turn up without running it (its target could not be made). */
  cancel(): void;
}

export type Admission = { ok: true; turn: AdmittedTurn } | { ok: false; message: string };

export interface Turns {
  admit(request: TurnRequest): Promise<Admission>;
}

export function createTurns(deps: TurnDeps): Turns {
  return {
    async admit(request) {
      const decision = await decide(deps.admission, request.scope, request.text);
      if (!decision.ok) {
        if (decision.limit) deps.onLimitRefusal?.(decision.limit);
        return { ok: false, message: decision.message };
      }
      const admitted = { ...request, text: decision.text };
      const { ticket } = decision;
      let used = false;
      const release = () => ticket.release().catch((error) => deps.logger.warn({ err: error, ticket: ticket.id }, 'could not release a usage slot; it frees itself when its lease ends'));
      return {
        ok: true,
        turn: {
          text: decision.text,
          async run(target, options) {
            if (used) throw new Error('A turn runs once.');
            used = true;
            const request = options?.reply ? { ...admitted, reply: options.reply } : admitted;
            try {
              return await inQueue(deps, target, () => settingsThenRun(deps, request, target, ticket));
            } finally {
              await release();
            }
          },
          cancel() {
            if (used) return;
            used = true;
            void release();
          },
        },
      };
    },
  };
}

/** A thread's turns run one at a time; a thread busy for too long gets a clear message instead of a hang. */
async function inQueue(deps: TurnDeps, target: TurnTarget, job: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
  const key = target.conversationKey;
  if (!key) return job();
  try {
    return await deps.queue.run(key, job);
  } catch (error) {
    if (!(error instanceof ThreadBusyError)) throw error;
    return { busy: error.message };
  }
}

async function settingsThenRun(deps: TurnDeps, request: TurnRequest, target: TurnTarget, ticket: UsageTicket): Promise<TurnOutcome> {
  // Checked when the turn's time comes, not when it was queued: a thread can be locked or lose a permission meanwhile.
  const problem = target.preflight?.();
  if (problem) {
    deps.logger.warn({ ...request.logFields, problem }, 'no run: the bot cannot answer there (no model call made)');
    return { unable: problem };
  }
  const settings = await deps.channelSettings(request.scope);
  return runTurn(deps, { ...request, target, display: settings.display, maxSteps: settings.maxSteps, model: settings.model, persona: settings.persona, ticket });
}
