/**
 * Follow-ups: a message in a thread the bot answers joins the thread's next turn. Admitted by the
 * pipeline without a slot (waiting in a busy thread is not running), it waits here with the others
 * (follow-up-batches.ts) instead of queuing a turn of its own; one turn takes them all when the thread's
 * queue reaches it, and the pipeline records and runs it like any other. The first member who may start
 * a run pays for it, each member pays their share of the tokens, and every message is settled with that
 * turn's outcome, or told why none will answer it (a limit, a thread busy too long, `/reset`, its
 * deletion). None vanishes.
 */
import { describeError } from '../../errors.js';
import type { UsageTicket } from '../../state/index.js';
import type { TurnTarget } from '../posting/target.js';
import { refusalText } from '../text/usage-text.js';
import { giveBack, LIMITS_UNCHECKED } from './claim.js';
import type { TurnDeps } from './deps.js';
import { DEFAULT_BATCH_LIMITS, FollowUpBatches, type WaitingMessage } from './follow-up-batches.js';
import type { TurnOrigin } from './origin.js';
import type { TurnOutcome } from './outcome.js';
import type { NewTurn, Placement } from './record.js';

/** A turn of waiting messages waits behind a long run rather than give its messages up. */
const WAITING_TURN_MAX_WAIT_MS = 15 * 60_000;

export interface FollowUps {
  /** Wait with the others (admitted: `ticket`, placed: `target`) for the turn that answers it: that turn's outcome, or why none will. */
  join(origin: Extract<TurnOrigin, { kind: 'follow-up' }>, ticket: UsageTicket, target: TurnTarget): Promise<TurnOutcome>;
  /** Give up every message waiting in a thread, each settled with `outcome`; how many. */
  drop(threadId: string, outcome: TurnOutcome): number;
  /** Take back one waiting message (its author deleted it); whether it was waiting. */
  remove(channelId: string, messageId: string): boolean;
  /** Messages waiting in a thread. */
  waiting(threadId: string): number;
}

export interface FollowUpContext {
  /** Runs a job in its thread's turn (one at a time per thread), or says the thread was busy too long. */
  inQueue(target: TurnTarget, job: () => Promise<TurnOutcome>, maxWaitMs?: number): Promise<TurnOutcome>;
  /** Records and runs a turn (the pipeline's steps after the queue). */
  run(job: { turn: NewTurn; placed: Placement; ticket: UsageTicket; riders: ReadonlyArray<{ userId: string; ticket: UsageTicket }> }): Promise<TurnOutcome>;
}

export function createFollowUps(deps: TurnDeps, ctx: FollowUpContext): FollowUps {
  const batches = new FollowUpBatches({ ...DEFAULT_BATCH_LIMITS, maxTokens: Math.max(1, Math.floor(deps.memory.historyTokenBudget / 2)), ...deps.batch });
  const settle = (messages: readonly WaitingMessage[], outcome: TurnOutcome) => {
    for (const message of messages) {
      void giveBack(deps.logger, message.ticket);
      message.settle(outcome);
    }
  };

  return {
    async join(origin, ticket, target) {
      const key = target.conversationKey;
      if (!key) throw new Error('A follow-up needs a thread.');
      return new Promise<TurnOutcome>((settled) => {
        const added = batches.add(key, { request: origin.request, ticket, taken: origin.taken, settle: settled });
        if ('refused' in added) {
          void giveBack(deps.logger, ticket);
          settled({ kind: 'refused', message: added.refused });
        } else if (added.schedule) schedule(target, key);
      });
    },
    drop(threadId, outcome) {
      const dropped = batches.drop(threadId);
      settle(dropped, outcome);
      return dropped.length;
    },
    remove(channelId, messageId) {
      const removed = batches.remove(channelId, messageId);
      if (removed) settle([removed], { kind: 'stopped', message: 'The message was deleted before it was answered.' });
      return removed !== undefined;
    },
    waiting: (threadId) => batches.waiting(threadId),
  };

  /** Queue a turn that takes the thread's waiting messages when its time comes. */
  function schedule(target: TurnTarget, key: string): void {
    void ctx
      .inQueue(target, () => answerWaiting(target, key), WAITING_TURN_MAX_WAIT_MS)
      .catch((error): TurnOutcome => {
        deps.logger.error({ err: error, threadId: key }, 'a follow-up turn failed');
        return { kind: 'busy', message: `I could not take the messages waiting here (${describeError(error)}). Send yours again in a moment.` };
      })
      .then((outcome) => {
        // Messages a turn took are settled by it. The queue gave up on the thread (or failed before the
        // turn began): every message still waiting is told so, none vanishes.
        if (outcome.kind === 'busy') settle(batches.drop(key), outcome);
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
      const payerId = payer.message.request.author.id;
      // One ticket per member pays their share; the payer's holds the turn's slot.
      const riders = [...new Map(taken.filter((m) => m.request.author.id !== payerId).map((m) => [m.request.author.id, { userId: m.request.author.id, ticket: m.ticket }])).values()];
      const turn: NewTurn = { kind: 'follow-up', messages, payer: payerId, logFields: payer.message.request.logFields };
      return (outcome = await ctx.run({ turn, placed: { target, place: { kind: 'thread', threadId: key } }, ticket: payer.message.ticket, riders }));
    } finally {
      await giveBack(deps.logger, ...taken.map((m) => m.ticket));
      for (const message of taken) message.settle(outcome);
    }
  }

  /** The first member who may start a run now pays for it (their slot); or why none may. */
  async function payerOf(taken: WaitingMessage[]): Promise<{ message: WaitingMessage } | { refused: TurnOutcome }> {
    let refusal = '';
    for (const message of taken) {
      const held = await message.ticket.hold().catch(() => ({ ok: false as const, storage: true }));
      if (held.ok) return { message };
      refusal ||= 'storage' in held ? LIMITS_UNCHECKED : refusalText(held);
      if ('limit' in held) deps.observers?.onLimitRefusal?.(held.limit);
    }
    return { refused: { kind: 'refused', message: refusal } };
  }
}
