/**
 * The turn pipeline: `start(origin)`, the one way a turn begins, for every origin (origin.ts): a
 * question (a command, a form, a button, a message, a schedule), a follow-up, a turn resumed after an
 * approval. Each goes through one sequence, and ends with one outcome the pipeline itself turns into what
 * the person hears (reply.ts):
 *
 *   const input = turns.checkInput(scope, text);          // instant: before the command acknowledges
 *   if (!input.ok) return refuse(input.message);
 *   await turns.start({ kind: 'ask', interaction, request: { ..., text: input.text } });
 *
 * 1. admit (claim.ts): the usage limits, a claim taken, with the origin's options (origin.ts);
 * 2. place (place.ts): only now does `/ask` open its thread; a resumed turn finds its place again;
 * 3. queue: one turn at a time per thread; a follow-up waits with the others for the thread's next turn
 *    instead (follow-ups.ts), which takes them all;
 * 4. record (record.ts): checked when its time comes (can the bot still post there?), its settings read,
 *    and the skill it runs (skill-turn.ts: its origin's, or its thread's), whose tools narrow the run's;
 * 5. run (run-turn.ts); a run that stops for an approval waits in storage (waiting-turns.ts), and its
 *    last decision hands it back here as a `resume` origin;
 * 6. reply (reply.ts), once.
 * An origin's hooks are called at their named points (placed, beforeRun, ended); nothing here knows
 * what a schedule is.
 */
import type { Client } from 'discord.js';
import type { RunScope } from '../../policy/index.js';
import { ThreadBusyError, type UsageTicket } from '../../state/index.js';
import type { TurnTarget } from '../posting/target.js';
import { allowedForAll, type PlaceRules } from '../rules/rules.js';
import { decide, giveBack } from './claim.js';
import type { TurnDeps } from './deps.js';
import { createFollowUps } from './follow-ups.js';
import { ADMISSION, type OriginHooks, type Resume, type TurnOrigin } from './origin.js';
import type { TurnOutcome } from './outcome.js';
import { placeFor } from './place.js';
import { checkInput, makeRecord, type CheckedText, type NewTurn, type Placement } from './record.js';
import { replyFor, slowAdmissionNotice, type ReplyContext } from './reply.js';
import { runTurn } from './run-turn.js';
import { KEEPS_THREAD_SKILL, skillTools, withSkill } from './skill-turn.js';
import { createWaitingTurns, type ApprovalDecision, type Deciders, type Pressed } from './waiting-turns.js';

export interface Turns {
  /** The checks that need no storage (text, DMs): the cleaned text, or the sentence to show. Instant. */
  checkInput(scope: RunScope, text: string): { ok: true; text: CheckedText } | { ok: false; message: string };
  /**
   * Start a turn and run it to its one outcome, which the person has been told of when this resolves.
   * A follow-up's outcome is that of the turn that answered it (with the messages waiting beside it),
   * or why none will: refused, busy, or stopped by `/reset`.
   */
  start(origin: TurnOrigin): Promise<TurnOutcome>;
  /** Approve or Deny call `index` of waiting turn `id`; the last decision resumes it (through `start`). */
  decide(client: Client<true>, id: string, index: number, decision: ApprovalDecision, pressedOn?: string): Promise<Pressed>;
  /**
   * Who may decide call `index` of waiting turn `id` (or stop it, without an index): its askers and
   * moderators, or only the people the tool named; undefined when it no longer waits. A turn that cannot
   * be read back is ended on this press (its thread told, the buttons of `pressedOn` taken off): `ended`.
   */
  whoMayDecide(client: Client<true>, id: string, index?: number, pressedOn?: string): Promise<Deciders | undefined>;
  /** Stop a turn that waits for approval; false when it was not waiting. */
  stopWaiting(client: Client<true>, id: string): Promise<boolean>;
  /** End the waiting turns of this process's guilds whose time is up. */
  sweepWaiting(client: Client<true>): Promise<void>;
  /** Give up what waits in a thread (`/reset`): messages (each settled as stopped) and turns waiting for approval; how many of each. */
  dropWaiting(client: Client<true>, threadId: string): Promise<Dropped>;
  /** Messages waiting in a thread for its next turn. */
  waiting(threadId: string): number;
  /** Turns waiting for approval in a thread (kept in the shared storage: a thread's first run may be one). */
  approvalsWaiting(threadId: string): Promise<number>;
  /**
   * A person deleted their message: taken back wherever it is. Waiting, it is dropped before its turn;
   * being answered, it is not kept (and a turn whose every question is gone stops before its next model
   * call); answered already, it leaves the thread's memory.
   */
  forget(message: { channelId: string; messageId: string }): Promise<void>;
}

/** What `/reset` gave up in a thread: messages waiting for an answer, turns waiting for approval. */
export interface Dropped {
  messages: number;
  approvals: number;
}

/** A turn whose time has come: what it answers, where, who pays, and what it goes on from. */
interface TurnJob {
  turn: NewTurn;
  placed: Placement;
  ticket: UsageTicket;
  riders?: ReadonlyArray<{ userId: string; ticket: UsageTicket }>;
  /** The rules the turn was admitted under (its settings are read from them). */
  here?: PlaceRules;
  hooks?: OriginHooks;
  resume?: Resume;
}

/** What a turn of its own answers: its origin's message, or, resumed, the turn as it stopped (its kind and settings kept). */
function turnOf(origin: Exclude<TurnOrigin, { kind: 'follow-up' }>): NewTurn {
  if (origin.kind === 'resume') {
    const { kind, messages, payer, logFields, settings, skill } = origin.turn;
    return { kind, messages, payer, logFields, settings, ...(skill ? { skill } : {}) };
  }
  const { request } = origin;
  const skill = origin.kind === 'skill' || origin.kind === 'schedule' ? origin.skill : undefined;
  return { kind: origin.kind, messages: [request], payer: request.author.id, logFields: request.logFields, ...(skill ? { skill } : {}) };
}

export function createTurns(deps: TurnDeps): Turns {
  const { store, audit, timeoutMs } = deps.approvals;
  const waitingTurns = createWaitingTurns({ store, conversations: deps.memory.conversations, audit, timeoutMs, now: deps.now, logger: deps.logger });
  const followUps = createFollowUps(deps, { inQueue, run: recordAndRun });

  /** Every turn: its steps, then its one outcome told once where it was asked; its origin told when it is over. */
  async function start(origin: TurnOrigin): Promise<TurnOutcome> {
    const { request } = origin;
    try {
      const { outcome, notice } = await steps(origin);
      const ctx: ReplyContext = { name: request.author.name, question: request.text, ...(notice ? { notice } : {}) };
      await replyFor(origin, outcome, ctx).catch((error) => deps.logger.warn({ err: error, ...request.logFields }, 'could not tell the person how their turn ended'));
      return outcome;
    } finally {
      await origin.ended?.();
    }
  }

  /** Admit, place, queue, record and run: the turn's outcome, and a notice its reply keeps. */
  async function steps(origin: TurnOrigin): Promise<{ outcome: TurnOutcome; notice?: string }> {
    const { request } = origin;
    // The rules of the place, read once for the turn: its limits now, its settings when it runs.
    const here = deps.rules.at(request.scope);
    const slow = slowAdmissionNotice(origin);
    const decision = await decide(deps.admission, request.scope, here.limits, ADMISSION[origin.kind]);
    slow.stop();
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return { outcome: { kind: 'refused', message: decision.message } };
    }
    const { ticket } = decision;
    try {
      const placed = await placeFor(origin, { conversations: deps.memory.conversations, logger: deps.logger });
      await origin.placed?.('unable' in placed ? { unable: placed.unable } : { place: placed.place });
      if ('unable' in placed) return { outcome: { kind: 'unable', message: placed.unable } };
      // A follow-up waits with the others for its thread's next turn, which answers them all.
      if (origin.kind === 'follow-up') return { outcome: await followUps.join(origin, ticket, placed.target) };
      const job: TurnJob = { turn: turnOf(origin), placed, ticket, here, hooks: origin, ...(origin.kind === 'resume' ? { resume: origin.resume } : {}) };
      const outcome = await inQueue(placed.target, () => recordAndRun(job));
      return { outcome, ...(placed.notice ? { notice: placed.notice } : {}) };
    } finally {
      // Given back at the run's last model call already, or held by a waiting follow-up until it is settled.
      await giveBack(deps.logger, ticket);
    }
  }

  /** The queue reached the turn: its record (checked now), its origin's last word, then the run. */
  async function recordAndRun(job: TurnJob): Promise<TurnOutcome> {
    const { target } = job.placed;
    const skilled = job.turn.skill || KEEPS_THREAD_SKILL.has(job.turn.kind) ? await withSkill(deps, job.turn, target.conversationKey) : job.turn;
    const made = await makeRecord(deps, skilled, job.placed, job.here);
    if (!made.ok) return made.outcome;
    const stopped = await job.hooks?.beforeRun?.(target);
    if (stopped) return stopped;
    const members = allowedForAll(deps.rules, job.turn.messages.map((m) => m.scope));
    const allowed = made.record.skill ? skillTools(members, made.record.skill) : members;
    const live = { turn: made.record, target, ticket: job.ticket, ...(job.riders ? { riders: job.riders } : {}), allowedTools: allowed };
    return runTurn(deps, live, waitingTurns, job.resume);
  }

  /** A thread's turns run one at a time; a thread busy for too long gets a clear message instead of a hang. */
  async function inQueue(target: TurnTarget, job: () => Promise<TurnOutcome>, maxWaitMs?: number): Promise<TurnOutcome> {
    const key = target.conversationKey;
    if (!key) return job();
    try {
      return await deps.queue.run(key, job, maxWaitMs ? { maxWaitMs } : {});
    } catch (error) {
      if (!(error instanceof ThreadBusyError)) throw error;
      return { kind: 'busy', message: error.message };
    }
  }

  return {
    checkInput: (scope, text) => checkInput(deps.admission, scope, text),
    start,
    async decide(client, id, index, decision, pressedOn) {
      const { pressed, ready } = await waitingTurns.decide(client, id, index, decision, pressedOn);
      // The last decision hands the turn back: it goes on in the background, and the press is answered at once.
      if (ready) void start(ready).catch((error) => deps.logger.error({ err: error, turnId: id }, 'a turn resumed after its approvals failed'));
      return pressed;
    },
    whoMayDecide: (client, id, index, pressedOn) => waitingTurns.whoMay(client, id, index, pressedOn),
    stopWaiting: (client, id) => waitingTurns.stop(client, id),
    sweepWaiting: (client) => waitingTurns.sweep(client),
    async dropWaiting(client, threadId) {
      const messages = followUps.drop(threadId, { kind: 'stopped', message: 'The thread was reset before this message was answered.' });
      return { messages, approvals: await waitingTurns.dropInThread(client, threadId) };
    },
    waiting: (threadId) => followUps.waiting(threadId),
    approvalsWaiting: (threadId) => waitingTurns.inThread(threadId),
    async forget({ channelId, messageId }) {
      const waiting = followUps.remove(channelId, messageId);
      deps.runs.messageDeleted(messageId);
      const taken = await deps.memory.conversations.takeBack(channelId, messageId).catch((error) => {
        deps.logger.warn({ err: error, threadId: channelId, messageId }, 'could not take a deleted message out of the thread\'s memory');
        return 0;
      });
      // The answers to it that members may rate lose their text too.
      const rated = (await deps.feedback?.forgetMessage(channelId, messageId).catch((error) => {
        deps.logger.warn({ err: error, threadId: channelId, messageId }, 'could not take a deleted message out of the answers kept for rating');
        return 0;
      })) ?? 0;
      if (waiting || taken || rated) deps.logger.info({ threadId: channelId, messageId, waiting, taken, rated }, 'a deleted message was taken back');
    },
  };
}
