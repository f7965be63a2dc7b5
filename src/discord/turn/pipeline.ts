/**
 * The turn pipeline: the one way a turn starts, for every origin (record.ts), and the one outcome it
 * ends with, which the pipeline itself turns into what the person hears (reply.ts):
 *
 *   const input = turns.checkInput(scope, text);          // instant: before the command acknowledges
 *   if (!input.ok) return refuse(input.message);
 *   await turns.start({ kind: 'ask', interaction, request: { ..., text: input.text } });
 *
 * A question is admitted (the usage limits, a claim taken), placed (place.ts: only now does `/ask` open
 * its thread), queued (one turn at a time per thread), checked (can the bot still post there?), given
 * its place's settings (read once), and run (run-turn.ts). A follow-up in a bot thread waits while the
 * thread is busy and is answered with the others by the thread's next turn (follow-ups.ts). A
 * turn that stopped for an approval is resumed here when its calls are decided (waiting-turns.ts).
 */
import type { Client } from 'discord.js';
import type { CallDecision, RunState } from '../../agent/engine.js';
import type { RunScope } from '../../policy/index.js';
import { ThreadBusyError, type WaitingTurnRecord } from '../../state/index.js';
import { TAKEN_OVER_NOTE } from '../text/schedule-text.js';
import { placeMessages, targetOf, type TurnTarget } from '../posting/target.js';
import { allowedForAll } from '../rules/rules.js';
import { decide, giveBack } from './claim.js';
import { waitingTurnOf } from './approvals.js';
import type { TurnDeps } from './deps.js';
import { createFollowUps } from './follow-ups.js';
import type { TurnOutcome } from './outcome.js';
import { placeFor } from './place.js';
import { checkInput, makeRecord, payerMessage, type CheckedText, type QuestionOrigin, type TurnOrigin } from './record.js';
import { linkBackLater, replyFor, slowAdmissionNotice, type ReplyContext } from './reply.js';
import { runTurn, type LiveTurn, type Resume } from './run-turn.js';
import { createWaitingTurns, type ApprovalDecision, type Pressed } from './waiting-turns.js';

export interface Turns {
  /** The checks that need no storage (text, DMs): the cleaned text, or the sentence to show. Instant. */
  checkInput(scope: RunScope, text: string): { ok: true; text: CheckedText } | { ok: false; message: string };
  /**
   * Start a turn and run it to its one outcome, which the person has been told of when this resolves.
   * A follow-up's outcome is that of the turn that answered it (with the messages waiting beside it),
   * or why none will: refused, busy, or stopped by `/reset`.
   */
  start(origin: TurnOrigin): Promise<TurnOutcome>;
  /** Approve or Deny call `index` of waiting turn `id`; the last decision resumes it. */
  decide(client: Client<true>, id: string, index: number, decision: ApprovalDecision, pressedOn?: string): Promise<Pressed>;
  /**
   * Who may decide call `index` of waiting turn `id` (or stop it, without an index): its askers and
   * moderators, or only the people the tool named; undefined when it no longer waits.
   */
  whoMayDecide(id: string, index?: number): Promise<{ askers: string[]; only?: ReadonlyArray<{ id: string; name: string }> } | undefined>;
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

export function createTurns(deps: TurnDeps): Turns {
  const waitingTurns = createWaitingTurns({
    store: deps.approvals.store,
    conversations: deps.memory.conversations,
    audit: deps.approvals.audit,
    resume: (client, record, decisions) => resume(client, record, decisions),
    timeoutMs: deps.approvals.timeoutMs,
    now: deps.now,
    logger: deps.logger,
  });
  const followUps = createFollowUps(deps, { inQueue, parking: waitingTurns });

  return {
    checkInput: (scope, text) => checkInput(deps.admission, scope, text),
    async start(origin) {
      const { request } = origin;
      const { outcome, notice } = origin.kind === 'follow-up' ? { outcome: await followUps.join(origin), notice: undefined } : await startQuestion(origin);
      // One outcome, told once: what the person hears where they asked.
      const ctx: ReplyContext = { name: request.author.name, question: request.text, ...(notice ? { notice } : {}) };
      await replyFor(origin, outcome, ctx).catch((error) => deps.logger.warn({ err: error, ...request.logFields }, 'could not tell the person how their turn ended'));
      return outcome;
    },
    decide: (client, id, index, decision, pressedOn) => waitingTurns.decide(client, id, index, decision, pressedOn),
    whoMayDecide: (id, index) => waitingTurns.whoMay(id, index),
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
      if (waiting || taken) deps.logger.info({ threadId: channelId, messageId, waiting, taken }, 'a deleted message was taken back');
    },
  };

  /** A question's own turn: admitted, placed, queued, recorded and run; its outcome, and a notice its reply keeps. */
  async function startQuestion(origin: QuestionOrigin): Promise<{ outcome: TurnOutcome; notice?: string }> {
    const { request } = origin;
    // The rules of the place, read once for the turn: its limits now, its settings when it runs.
    const here = deps.rules.at(request.scope);
    const slow = slowAdmissionNotice(origin);
    const decision = await decide(deps.admission, request.scope, here.limits);
    slow.stop();
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return { outcome: { kind: 'refused', message: decision.message } };
    }
    const { ticket } = decision;
    try {
      const placed = await placeFor(origin, request.text, { conversations: deps.memory.conversations, logger: deps.logger });
      if ('unable' in placed) return { outcome: { kind: 'unable', message: placed.unable } };
      const { target } = placed;
      const outcome = await inQueue(target, async () => {
        const turn = await makeRecord(deps, { kind: origin.kind, messages: [request], payer: request.author.id, logFields: request.logFields }, placed, here);
        if (!turn.ok) return turn.outcome;
        if (origin.kind === 'schedule' && origin.begin && !(await origin.begin())) return takenOver(target);
        return runTurn(deps, { turn: turn.record, target, ticket, allowedTools: allowedForAll(deps.rules, [request.scope]) }, waitingTurns);
      });
      return { outcome, ...(placed.notice ? { notice: placed.notice } : {}) };
    } finally {
      await giveBack(deps.logger, ticket);
    }
  }

  /** A scheduled run whose occurrence another process took over: its thread says so rather than stay empty. */
  async function takenOver(target: TurnTarget): Promise<TurnOutcome> {
    const message = TAKEN_OVER_NOTE;
    await target.send({ content: message }).catch(() => undefined);
    return { kind: 'busy', message };
  }

  /**
   * A waiting turn whose calls are all decided goes on: admitted again for its payer (a slot and the
   * caps, not another run of the hour), in its thread's queue, from its saved state.
   */
  async function resume(client: Client<true>, record: WaitingTurnRecord, decisions: Record<string, CallDecision>): Promise<void> {
    const waiting = waitingTurnOf(record);
    const before = waiting.turn;
    const messages = placeMessages(client, before.place);
    const finishWith = async (note?: string) => {
      if (note) await messages.post(note).catch(() => undefined);
      await deps.approvals.store.remove(record.id).catch(() => undefined);
    };
    // The Stop button moves to the resumed run's log.
    if (waiting.stopMessage) await messages.edit(waiting.stopMessage.messageId, { components: [] }).catch(() => undefined);
    const target = await targetOf(client, before.place);
    if (!target) return finishWith();
    const { scope } = payerMessage(before);
    const here = deps.rules.at(scope);
    const decision = await decide(deps.admission, scope, here.limits, { countRun: false });
    if (!decision.ok) return finishWith(`⏹️ I could not go on with this run: ${decision.message}`);
    try {
      const outcome = await inQueue(target, async () => {
        const turn = await makeRecord(deps, { kind: 'resume', messages: before.messages, payer: before.payer, logFields: before.logFields }, { target, place: before.place, ...(before.reply ? { reply: before.reply } : {}) }, here);
        if (!turn.ok) return turn.outcome;
        const live: LiveTurn = { turn: { ...turn.record, settings: before.settings }, target, ticket: decision.ticket, allowedTools: allowedForAll(deps.rules, before.messages.map((m) => m.scope)) };
        const taken: Resume = { state: record.state as RunState, decisions, asked: waiting.asked };
        return runTurn(deps, live, waitingTurns, taken);
      });
      if (outcome.kind === 'busy' || outcome.kind === 'unable') await messages.post(outcome.message).catch(() => undefined);
      if (before.kind === 'ask' && before.reply) await linkBackLater(client, before.reply, { name: payerMessage(before).author.name, question: payerMessage(before).text }, outcome);
    } finally {
      await giveBack(deps.logger, decision.ticket);
      await finishWith();
    }
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
}
