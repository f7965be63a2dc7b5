/**
 * The turn pipeline: the one way a turn starts, for `/ask`, Ask about this message, Continue and
 * follow-ups alike, and the one outcome it ends with.
 *
 *   const outcome = await turns.start({ request, place: async (text) => ({ target: threadTarget(thread) }) });
 *   switch (outcome.kind) { case 'refused': ...; case 'answered': ...; }
 *
 * `start` admits the request (the input, DMs, the usage limits), then asks the origin where the turn
 * posts (so `/ask` opens its thread only once the request is admitted), waits its turn in the thread's
 * queue, runs the pre-flight (can the bot post there now?), reads the place's settings, runs the engine
 * and returns one TurnOutcome. A follow-up in a bot thread is an origin too: it waits while the thread is
 * busy and is answered with the others by the thread's next turn (follow-up-batches.ts); its `start`
 * resolves with the outcome of that turn.
 */
import type { RunScope } from '../../policy/index.js';
import { ThreadBusyError, type UsageTicket } from '../../state/index.js';
import { describeError } from '../../errors.js';
import { refusalText } from '../text/usage-text.js';
import { checkInput, decide } from './admission.js';
import { DEFAULT_BATCH_LIMITS, FollowUpBatches, type WaitingMessage } from './follow-up-batches.js';
import { runTurn } from './run-turn.js';
import type { TurnOutcome } from './outcome.js';
import type { TurnTarget } from '../posting/target.js';
import type { TurnDeps, TurnMessage, TurnRequest } from './types.js';

export type { TurnDeps, TurnMessage, TurnRequest } from './types.js';

/** Where an admitted turn posts: its target, and the message that announced it (the /ask reply, for the run journal). */
export type TurnPlace = { target: TurnTarget; reply?: TurnRequest['reply'] } | { unable: string };

/** How a turn begins: a question that gets a turn of its own, or a message in a bot thread. */
export type TurnOrigin = QuestionOrigin | FollowUpOrigin;

/** `/ask`, Ask about this message, Continue: the person's request, and where it will post once admitted. */
export interface QuestionOrigin {
  request: TurnRequest;
  /**
   * Called once the request is admitted, with its cleaned text: make or find where the turn posts (open
   * the /ask thread, say), or say why it cannot (`unable`; the turn is given up, its slot freed).
   */
  place(text: string): Promise<TurnPlace>;
}

/**
 * A message in a bot thread: admitted at once, then answered by the thread's next turn together with
 * every other message waiting there (follow-up-batches.ts), so a busy team thread costs a few runs.
 */
export interface FollowUpOrigin {
  request: TurnRequest;
  /** The thread it was posted in. */
  thread: TurnTarget;
  /** Acknowledge that a turn took the message (a reaction). Never throws. */
  taken(): void;
}

export interface Turns {
  /** The checks that need no storage (text, DMs): the sentence to show, or undefined. Instant. */
  checkInput(request: Pick<TurnRequest, 'scope' | 'text'>): string | undefined;
  /**
   * Start a turn and run it to its one outcome. A follow-up's outcome is that of the turn that answered
   * it (with the messages waiting beside it), or why none will: refused, busy, or stopped by `/reset`.
   */
  start(origin: TurnOrigin): Promise<TurnOutcome>;
  /** Give up the messages waiting in a thread (`/reset`), each settled as stopped; how many there were. */
  dropWaiting(threadId: string): number;
  /** Messages waiting in a thread for its next turn. */
  waiting(threadId: string): number;
  /**
   * Claim a one-time start (a Continue button's message): true for the first claim only, however many
   * clicks arrive at once. Claims are forgotten after a quarter of an hour, when the button is long gone.
   */
  claimOnce(key: string): boolean;
  /** Give a claim back (the start was refused, and the button is offered again). */
  releaseClaim(key: string): void;
}

export function createTurns(deps: TurnDeps): Turns {
  const claimed = new Set<string>();
  const batches = new FollowUpBatches({ ...DEFAULT_BATCH_LIMITS, maxTokens: Math.max(1, Math.floor(deps.memory.historyTokenBudget / 2)), ...deps.batch });
  const releaseLater = (ticket: UsageTicket) =>
    void ticket.release().catch((error) => deps.logger.warn({ err: error, ticket: ticket.id }, 'could not release a usage slot; it frees itself when its lease ends'));

  /** Queue a turn that takes the thread's waiting messages when its time comes. */
  function schedule(target: TurnTarget, key: string): void {
    void inQueue(deps, target, () => answerWaiting(deps, batches, target, key, () => schedule(target, key)), WAITING_TURN_MAX_WAIT_MS)
      .catch((error): TurnOutcome => {
        deps.logger.error({ err: error, threadId: key }, 'a follow-up turn failed');
        return { kind: 'busy', message: `I could not take the messages waiting here (${describeError(error)}). Send yours again in a moment.` };
      })
      .then((outcome) => {
        // Messages a turn took are settled by it. The queue gave up on the thread (or failed before the
        // turn began): every message still waiting is told so, none vanishes.
        if (outcome.kind !== 'busy') return;
        for (const message of batches.drop(key)) {
          releaseLater(message.ticket);
          message.settle(outcome);
        }
      });
  }

  return {
    checkInput(request) {
      const input = checkInput(deps.admission, request.scope, request.text);
      return input.ok ? undefined : input.message;
    },

    start: (origin) => ('place' in origin ? startQuestion(origin) : joinWaiting(origin)),

    dropWaiting(threadId) {
      const dropped = batches.drop(threadId);
      for (const message of dropped) {
        releaseLater(message.ticket);
        message.settle({ kind: 'stopped', message: 'The thread was reset before this message was answered.' });
      }
      return dropped.length;
    },

    waiting: (threadId) => batches.waiting(threadId),

    claimOnce(key) {
      if (claimed.has(key)) return false;
      claimed.add(key);
      setTimeout(() => claimed.delete(key), CLAIM_MS).unref();
      return true;
    },

    releaseClaim: (key) => void claimed.delete(key),
  };

  async function startQuestion({ request, place }: QuestionOrigin): Promise<TurnOutcome> {
    // The rules of the place, read once for the turn: its limits now, its settings when it runs.
    const here = deps.rules.at(request.scope);
    const decision = await decide(deps.admission, request.scope, here.limits, request.text);
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return { kind: 'refused', message: decision.message };
    }
    const { ticket } = decision;
    try {
      const placed = await place(decision.text);
      if ('unable' in placed) return { kind: 'unable', message: placed.unable };
      const admitted = { ...request, text: decision.text, ...(placed.reply ? { reply: placed.reply } : {}) };
      return await inQueue(deps, placed.target, () => settingsThenRun(deps, { ...admitted, messages: [admitted] }, placed.target, ticket, here));
    } finally {
      await ticket.release().catch((error) => deps.logger.warn({ err: error, ticket: ticket.id }, 'could not release a usage slot; it frees itself when its lease ends'));
    }
  }

  async function joinWaiting({ request, thread, taken }: FollowUpOrigin): Promise<TurnOutcome> {
    const key = thread.conversationKey;
    if (!key) throw new Error('A follow-up needs a thread.');
    // The slot is taken when a turn takes the message: waiting in a busy thread is not running.
    const decision = await decide(deps.admission, request.scope, deps.rules.at(request.scope).limits, request.text, { slot: 'later' });
    if (!decision.ok) {
      if (decision.limit) deps.observers?.onLimitRefusal?.(decision.limit);
      return { kind: 'refused', message: decision.message };
    }
    return new Promise<TurnOutcome>((settle) => {
      const added = batches.add(key, { request: { ...request, text: decision.text }, ticket: decision.ticket, taken, settle });
      if ('refused' in added) {
        releaseLater(decision.ticket);
        settle({ kind: 'refused', message: added.refused });
      } else if (added.schedule) schedule(thread, key);
    });
  }
}

/** How long a one-time start stays claimed. */
const CLAIM_MS = 15 * 60_000;

/** A turn of waiting messages waits behind a long run rather than give its messages up. */
const WAITING_TURN_MAX_WAIT_MS = 15 * 60_000;

/** A thread's turns run one at a time; a thread busy for too long gets a clear message instead of a hang. */
async function inQueue(deps: TurnDeps, target: TurnTarget, job: () => Promise<TurnOutcome>, maxWaitMs?: number): Promise<TurnOutcome> {
  const key = target.conversationKey;
  if (!key) return job();
  try {
    return await deps.queue.run(key, job, maxWaitMs ? { maxWaitMs } : {});
  } catch (error) {
    if (!(error instanceof ThreadBusyError)) throw error;
    return { kind: 'busy', message: error.message };
  }
}

/**
 * The turn that answers a thread's waiting messages: it takes them (up to the batch caps, scheduling
 * another turn for the rest), finds whose slot pays for it, and runs once for all of them.
 */
async function answerWaiting(deps: TurnDeps, batches: FollowUpBatches, target: TurnTarget, key: string, scheduleMore: () => void): Promise<TurnOutcome> {
  const { taken, more } = batches.take(key, (text) => deps.memory.tokenCounter.text(text));
  if (more) scheduleMore();
  if (taken.length === 0) return { kind: 'refused', message: 'nothing was waiting' };
  // Every message taken is settled with this turn's outcome, however it ends (a throw included).
  let outcome: TurnOutcome = { kind: 'failed', message: 'Something went wrong before I could answer your message. Send it again in a moment.' };
  try {
    // The first member who may start a run now pays for it (their slot, their tokens); the others' messages ride along.
    let payer: WaitingMessage | undefined;
    let refusal = '';
    for (const message of taken) {
      const held = await message.ticket.hold().catch(() => ({ ok: false as const, storage: true }));
      if (held.ok) {
        payer = message;
        break;
      }
      refusal ||= 'storage' in held ? 'I cannot check usage limits right now (my storage is not answering), so I did not start anything. Try again in a moment.' : refusalText(held);
      if ('limit' in held) deps.observers?.onLimitRefusal?.(held.limit);
    }
    if (!payer) return (outcome = { kind: 'refused', message: refusal });
    for (const message of taken) message.taken();
    const first = payer.request;
    const messages = taken.map((m) => m.request);
    return (outcome = await settingsThenRun(deps, { ...first, messages, askers: [...new Set(messages.map((m) => m.author.id))], scopes: messages.map((m) => m.scope) }, target, payer.ticket));
  } finally {
    await Promise.all(taken.map((m) => m.ticket.release().catch(() => undefined)));
    for (const message of taken) message.settle(outcome);
  }
}

/** What a turn runs: the messages it answers, the scope of the member whose slot it holds, and who asked. */
type TurnPlan = Omit<TurnRequest, keyof TurnMessage> & Pick<TurnMessage, 'author'> & {
  messages: TurnMessage[];
  /** Everyone whose message the turn answers (default: the author): each may stop it. */
  askers?: string[];
  /** The scope of each message, when several members asked: the turn gets only tools all of them may use. */
  scopes?: RunScope[];
};

/** Run a turn with the settings of its place (`here`: the rules read when it was admitted, or now). */
async function settingsThenRun(deps: TurnDeps, plan: TurnPlan, target: TurnTarget, ticket: UsageTicket, here = deps.rules.at(plan.scope)): Promise<TurnOutcome> {
  // Checked when the turn's time comes, not when it was queued: a thread can be locked or lose a permission meanwhile.
  const problem = target.preflight?.();
  if (problem) {
    // A follow-up's thread gets no notice here: the bot cannot post there.
    deps.logger.warn({ ...plan.logFields, problem }, 'no run: the bot cannot answer there (no model call made)');
    return { kind: 'unable', message: problem };
  }
  const settings = await here.settings();
  return runTurn(deps, {
    ...plan,
    askers: plan.askers ?? [plan.author.id],
    allowedTools: allowedForAll(deps, plan.scopes ?? [plan.scope]),
    target,
    display: settings.display,
    maxSteps: settings.maxSteps,
    model: settings.model,
    persona: settings.persona,
    ticket,
  });
}

/** The tools every one of the members may use here (one member: theirs), read at each step. */
function allowedForAll(deps: TurnDeps, scopes: RunScope[]): () => Promise<ReadonlySet<string>> {
  const distinct = [...new Map(scopes.map((s) => [s.userId, s])).values()];
  return async () => {
    const sets = await Promise.all(distinct.map((scope) => deps.rules.at(scope).allowedTools()));
    const [first, ...rest] = sets;
    return new Set([...(first ?? [])].filter((tool) => rest.every((set) => set.has(tool))));
  };
}
