/**
 * The turn pipeline: the one way a turn starts, for every origin (origin.ts), and the one outcome it
 * ends with, which the pipeline itself turns into what the person hears (reply.ts):
 *
 *   const input = turns.checkInput(scope, text);          // instant: before the command acknowledges
 *   if (!input.ok) return refuse(input.message);
 *   await turns.start({ kind: 'ask', interaction, request: { ..., text: input.text } });
 *
 * A question is admitted (the usage limits, a claim taken), placed (place.ts: only now does `/ask` open
 * its thread), queued (one turn at a time per thread), checked (can the bot still post there?), given
 * its place's settings (read once), and run (run-turn.ts). A follow-up in a bot thread waits while the
 * thread is busy and is answered with the others by the thread's next turn (follow-up-batches.ts). A
 * turn that stopped for an approval is resumed here when its calls are decided (waiting-turns.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'discord.js';
import type { CallDecision, RunState } from '../../agent/engine.js';
import { describeError } from '../../errors.js';
import type { RunScope } from '../../policy/index.js';
import { ThreadBusyError, type UsageTicket, type WaitingTurnRecord } from '../../state/index.js';
import { TAKEN_OVER_NOTE } from '../text/schedule-text.js';
import { refusalText } from '../text/usage-text.js';
import { placeMessages, targetOf, type TurnTarget } from '../posting/target.js';
import { decide } from './claim.js';
import { waitingTurnOf } from './approvals.js';
import type { TurnDeps } from './deps.js';
import { DEFAULT_BATCH_LIMITS, FollowUpBatches, type WaitingMessage } from './follow-up-batches.js';
import type { TurnOutcome } from './outcome.js';
import { placeFor } from './place.js';
import { checkInput, payerMessage, type CheckedText, type QuestionOrigin, type TurnKind, type TurnMessage, type TurnOrigin, type TurnRecord } from './record.js';
import { linkBackLater, replyFor, slowAdmissionNotice } from './reply.js';
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
  /** Give up what waits in a thread (`/reset`): messages (each settled as stopped) and approvals; how many. */
  dropWaiting(client: Client<true>, threadId: string): Promise<number>;
  /** Messages waiting in a thread for its next turn. */
  waiting(threadId: string): number;
  /**
   * A person deleted their message: taken back wherever it is. Waiting, it is dropped before its turn;
   * being answered, it is not kept (and a turn whose every question is gone stops before its next model
   * call); answered already, it leaves the thread's memory.
   */
  forget(message: { channelId: string; messageId: string }): Promise<void>;
}

export function createTurns(deps: TurnDeps): Turns {
  const batches = new FollowUpBatches({ ...DEFAULT_BATCH_LIMITS, maxTokens: Math.max(1, Math.floor(deps.memory.historyTokenBudget / 2)), ...deps.batch });
  const waitingTurns = createWaitingTurns({
    store: deps.approvals.store,
    conversations: deps.memory.conversations,
    audit: deps.approvals.audit,
    resume: (client, record, decisions) => resume(client, record, decisions),
    timeoutMs: deps.approvals.timeoutMs,
    now: deps.now,
    logger: deps.logger,
  });
  const release = (ticket: UsageTicket) =>
    ticket.release().catch((error) => deps.logger.warn({ err: error, ticket: ticket.id }, 'could not release a usage slot; it frees itself when its lease ends'));

  return {
    checkInput: (scope, text) => checkInput(deps.admission, scope, text),
    start: (origin) => (origin.kind === 'follow-up' ? joinWaiting(origin) : startQuestion(origin)),
    decide: (client, id, index, decision, pressedOn) => waitingTurns.decide(client, id, index, decision, pressedOn),
    whoMayDecide: (id, index) => waitingTurns.whoMay(id, index),
    stopWaiting: (client, id) => waitingTurns.stop(client, id),
    sweepWaiting: (client) => waitingTurns.sweep(client),
    async dropWaiting(client, threadId) {
      const dropped = batches.drop(threadId);
      for (const message of dropped) {
        void release(message.ticket);
        message.settle({ kind: 'stopped', message: 'The thread was reset before this message was answered.' });
      }
      return dropped.length + (await waitingTurns.dropInThread(client, threadId));
    },
    waiting: (threadId) => batches.waiting(threadId),
    async forget({ channelId, messageId }) {
      const waiting = batches.remove(channelId, messageId);
      if (waiting) {
        void release(waiting.ticket);
        waiting.settle({ kind: 'stopped', message: 'The message was deleted before it was answered.' });
      }
      deps.runs.messageDeleted(messageId);
      const taken = await deps.memory.conversations.takeBack(channelId, messageId).catch((error) => {
        deps.logger.warn({ err: error, threadId: channelId, messageId }, 'could not take a deleted message out of the thread\'s memory');
        return 0;
      });
      if (waiting || taken) deps.logger.info({ threadId: channelId, messageId, waiting: Boolean(waiting), taken }, 'a deleted message was taken back');
    },
  };

  async function startQuestion(origin: QuestionOrigin): Promise<TurnOutcome> {
    const { request } = origin;
    // The rules of the place, read once for the turn: its limits now, its settings when it runs.
    const here = deps.rules.at(request.scope);
    const slow = slowAdmissionNotice(origin);
    const decision = await decide(deps.admission, request.scope, here.limits);
    slow.stop();
    const reply = { name: request.author.name, question: request.text };
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return told(origin, { kind: 'refused', message: decision.message }, reply);
    }
    const { ticket } = decision;
    let notice: string | undefined;
    let outcome: TurnOutcome;
    try {
      const placed = await placeFor(origin, request.text, { conversations: deps.memory.conversations, logger: deps.logger });
      if ('unable' in placed) {
        outcome = { kind: 'unable', message: placed.unable };
      } else {
        notice = placed.notice;
        const { target } = placed;
        outcome = await inQueue(target, async () => {
          const turn = await turnAt(origin.kind, [request], request.author.id, placed, request.logFields, here);
          if (!turn.ok) return turn.outcome;
          if (origin.kind === 'schedule' && origin.begin && !(await origin.begin())) return takenOver(target);
          return runTurn(deps, { turn: turn.record, target, ticket, allowedTools: allowedForAll(deps, [request.scope]) }, waitingTurns);
        });
      }
    } finally {
      await release(ticket);
    }
    return told(origin, outcome, { ...reply, ...(notice ? { notice } : {}) });
  }

  /** A scheduled run whose occurrence another process took over: its thread says so rather than stay empty. */
  async function takenOver(target: TurnTarget): Promise<TurnOutcome> {
    const message = TAKEN_OVER_NOTE;
    await target.send({ content: message }).catch(() => undefined);
    return { kind: 'busy', message };
  }

  /** Tell the origin how its turn ended, and hand the outcome back. */
  async function told(origin: TurnOrigin, outcome: TurnOutcome, ctx: Parameters<typeof replyFor>[2]): Promise<TurnOutcome> {
    await replyFor(origin, outcome, ctx).catch((error) => deps.logger.warn({ err: error, ...origin.request.logFields }, 'could not tell the person how their turn ended'));
    return outcome;
  }

  /**
   * The record of a turn whose time has come: checked when it runs, not when it was queued (a thread can
   * be locked or lose a permission meanwhile), with the place's settings read now.
   */
  async function turnAt(kind: TurnKind, messages: TurnMessage[], payer: string, placed: { target: TurnTarget; place: TurnRecord['place']; reply?: TurnRecord['reply'] }, logFields: TurnRecord['logFields'], here = deps.rules.at(messages[0]!.scope)) {
    const problem = placed.target.preflight?.();
    if (problem) {
      deps.logger.warn({ ...logFields, problem }, 'no run: the bot cannot answer there (no model call made)');
      return { ok: false as const, outcome: { kind: 'unable', message: problem } satisfies TurnOutcome };
    }
    const settings = await here.settings();
    const record: TurnRecord = {
      id: randomUUID().slice(0, 8),
      kind,
      messages,
      payer,
      place: placed.place,
      ...(placed.reply ? { reply: placed.reply } : {}),
      logFields,
      settings: { display: settings.display, maxSteps: settings.maxSteps, model: settings.model, ...(settings.persona ? { persona: settings.persona } : {}) },
    };
    return { ok: true as const, record };
  }

  async function joinWaiting(origin: Extract<TurnOrigin, { kind: 'follow-up' }>): Promise<TurnOutcome> {
    const { request, thread } = origin;
    const key = thread.conversationKey;
    if (!key) throw new Error('A follow-up needs a thread.');
    // The slot is taken when a turn takes the message: waiting in a busy thread is not running.
    const decision = await decide(deps.admission, request.scope, deps.rules.at(request.scope).limits, { slot: 'later' });
    const reply = { name: request.author.name, question: request.text };
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return told(origin, { kind: 'refused', message: decision.message }, reply);
    }
    const outcome = await new Promise<TurnOutcome>((settle) => {
      const added = batches.add(key, { request, ticket: decision.ticket, taken: origin.taken, settle });
      if ('refused' in added) {
        void release(decision.ticket);
        settle({ kind: 'refused', message: added.refused });
      } else if (added.schedule) schedule(thread, key);
    });
    return told(origin, outcome, reply);
  }

  /** Queue a turn that takes the thread's waiting messages when its time comes. */
  function schedule(target: TurnTarget, key: string): void {
    void inQueue(target, () => answerWaiting(target, key), WAITING_TURN_MAX_WAIT_MS)
      .catch((error): TurnOutcome => {
        deps.logger.error({ err: error, threadId: key }, 'a follow-up turn failed');
        return { kind: 'busy', message: `I could not take the messages waiting here (${describeError(error)}). Send yours again in a moment.` };
      })
      .then((outcome) => {
        // Messages a turn took are settled by it. The queue gave up on the thread (or failed before the
        // turn began): every message still waiting is told so, none vanishes.
        if (outcome.kind !== 'busy') return;
        for (const message of batches.drop(key)) {
          void release(message.ticket);
          message.settle(outcome);
        }
      });
  }

  /**
   * The turn that answers a thread's waiting messages: it takes them (up to the batch caps, scheduling
   * another turn for the rest), finds whose slot pays for it, and runs once for all of them. Every
   * message taken is settled with this turn's outcome, however it ends (a throw included).
   */
  async function answerWaiting(target: TurnTarget, key: string): Promise<TurnOutcome> {
    const { taken, more } = batches.take(key, (text) => deps.memory.tokenCounter.text(text));
    if (more) schedule(target, key);
    if (taken.length === 0) return { kind: 'refused', message: 'nothing was waiting' };
    let outcome: TurnOutcome = { kind: 'failed', message: 'Something went wrong before I could answer your message. Send it again in a moment.' };
    try {
      const payer = await payerOf(taken);
      if ('refused' in payer) return (outcome = payer.refused);
      for (const message of taken) message.taken();
      const messages = taken.map((m) => m.request);
      // One ticket per member pays their share; the payer's holds the turn's slot.
      const riders = [...new Map(taken.filter((m) => m.request.author.id !== payer.message.request.author.id).map((m) => [m.request.author.id, { userId: m.request.author.id, ticket: m.ticket }])).values()];
      const turn = await turnAt('follow-up', messages, payer.message.request.author.id, { target, place: { kind: 'thread', threadId: key } }, payer.message.request.logFields);
      if (!turn.ok) return (outcome = turn.outcome);
      return (outcome = await runTurn(deps, { turn: turn.record, target, ticket: payer.message.ticket, riders, allowedTools: allowedForAll(deps, messages.map((m) => m.scope)) }, waitingTurns));
    } finally {
      await Promise.all(taken.map((m) => release(m.ticket)));
      for (const message of taken) message.settle(outcome);
    }
  }

  /** The first member who may start a run now pays for it (their slot); or why none may. */
  async function payerOf(taken: WaitingMessage[]): Promise<{ message: WaitingMessage } | { refused: TurnOutcome }> {
    let refusal = '';
    for (const message of taken) {
      const held = await message.ticket.hold().catch(() => ({ ok: false as const, storage: true }));
      if (held.ok) return { message };
      refusal ||= 'storage' in held ? 'I cannot check usage limits right now (my storage is not answering), so I did not start anything. Try again in a moment.' : refusalText(held);
      if ('limit' in held) deps.observers?.onLimitRefusal?.(held.limit);
    }
    return { refused: { kind: 'refused', message: refusal } };
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
        const turn = await turnAt('resume', before.messages, before.payer, { target, place: before.place, ...(before.reply ? { reply: before.reply } : {}) }, before.logFields, here);
        if (!turn.ok) return turn.outcome;
        const live: LiveTurn = { turn: { ...turn.record, settings: before.settings }, target, ticket: decision.ticket, allowedTools: allowedForAll(deps, before.messages.map((m) => m.scope)) };
        const taken: Resume = { state: record.state as RunState, decisions, asked: waiting.asked };
        return runTurn(deps, live, waitingTurns, taken);
      });
      if (outcome.kind === 'busy' || outcome.kind === 'unable') await messages.post(outcome.message).catch(() => undefined);
      if (before.kind === 'ask' && before.reply) await linkBackLater(client, before.reply, { name: payerMessage(before).author.name, question: payerMessage(before).text }, outcome);
    } finally {
      await release(decision.ticket);
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

/** A turn of waiting messages waits behind a long run rather than give its messages up. */
const WAITING_TURN_MAX_WAIT_MS = 15 * 60_000;

/** The tools every one of the members may use here (one member: theirs), read at each step. */
function allowedForAll(deps: TurnDeps, scopes: RunScope[]): () => Promise<ReadonlySet<string>> {
  const distinct = [...new Map(scopes.map((s) => [s.userId, s])).values()];
  return async () => {
    const sets = await Promise.all(distinct.map((scope) => deps.rules.at(scope).allowedTools()));
    const [first, ...rest] = sets;
    return new Set([...(first ?? [])].filter((tool) => rest.every((set) => set.has(tool))));
  };
}
