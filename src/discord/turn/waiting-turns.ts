/**
 * What happens to a turn that waits for a person, after its run has stopped (approvals.ts): Approve or
 * Deny on each call (the next call is asked about once one is decided), Stop, `/reset`, and the sweep
 * that ends turns nobody decided in time (waiting-endings.ts). When its last call is decided the turn is
 * handed back, ready to go on, as a `resume` origin: whoever asked for the decision starts it (the
 * pipeline), so nothing here reaches into the pipeline. Each change is a compare-and-swap on the turn's
 * record in the shared storage, so two people pressing at once, or a press racing the sweep, settle one
 * way only: the tool runs once or not at all. A press at or past the deadline is late however far away
 * the sweep is. Every record is checked when it is read back: one that cannot be read is ended in the
 * open, never resumed on a guess.
 */
import type { Client } from 'discord.js';
import type { CallDecision } from '../../agent/engine.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import type { WaitingTurnRecord } from '../../state/index.js';
import { formatFailure } from '../posting/format-steps.js';
import { approvalRow } from '../posting/run-components.js';
import { placeMessages } from '../posting/target.js';
import { openWaiting, readWaitingTurn, requestText, unreadableOf, type OpenedTurn } from './approvals.js';
import type { TurnOrigin } from './origin.js';
import { askersOf, payerMessage } from './record.js';
import { createEndings, due, waitedFor, type EndingDeps } from './waiting-endings.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/**
 * How often the turns waiting for a person are checked for their time being up: a tenth of the wait,
 * between a quarter second and a minute (a day's wait ends within a minute of its time).
 */
export function sweepEvery(timeoutMs: number): number {
  return Math.min(60_000, Math.max(250, Math.floor(timeoutMs / 10)));
}

/** A person's decision on a waiting call. */
export interface ApprovalDecision {
  approved: boolean;
  by: { id: string; name: string };
  /** Where it was decided when not by a button in Discord: the web console (audited as such). */
  via?: 'console';
}

export interface WaitingTurnsDeps extends EndingDeps {
  timeoutMs: number;
}

/** Why a press did nothing, for the person who pressed. */
export type Pressed = { ok: true } | { ok: false; message: string };

/** A turn whose every call is decided, ready to go on: started by whoever pressed last (the pipeline). */
export type ReadyToResume = Extract<TurnOrigin, { kind: 'resume' }>;

/** Who may decide a waiting turn; or, for one found unreadable (ended now, its thread told), what to tell the presser. */
export type Deciders = { askers: string[]; only?: ReadonlyArray<{ id: string; name: string }> } | { ended: string };

export function createWaitingTurns(deps: WaitingTurnsDeps) {
  const { store, logger } = deps;
  const endings = createEndings(deps);

  return {
    /**
     * Who may decide call `index` of a waiting turn (or stop it, without an index): anyone it answers, and
     * moderators (checked by the caller); a call the tool held back for its owner, only the people it
     * names. Undefined when it no longer waits. A turn that cannot be read back is ended on this first
     * press, whoever presses (nobody could decide it): `ended` is what they are told.
     */
    async whoMay(client: Client<true>, id: string, index?: number, pressedOn?: string): Promise<Deciders | undefined> {
      const found = openWaiting(await store.read(id));
      if (!found) return undefined;
      if ('unreadable' in found) return { ended: await endings.unreadable(client, found.unreadable, pressedOn) };
      const { record, waiting } = found.opened;
      if (record.status !== 'waiting') return undefined;
      const only = index === undefined ? undefined : record.calls[index]?.approvers;
      return { askers: askersOf(waiting.turn), ...(only?.length ? { only } : {}) };
    },

    /** Approve or Deny call `index` of turn `id`. The last decision hands the turn back, `ready` to go on. */
    async decide(client: Client<true>, id: string, index: number, decision: ApprovalDecision, pressedOn?: string): Promise<{ pressed: Pressed; ready?: ReadyToResume }> {
      const at = deps.now().getTime();
      // The deadline is checked in the same compare-and-swap as the decision: a press at or past it ends
      // the wait instead (the sweep may be a minute away), and a press racing the sweep lands one way only.
      const { record, changed } = await store.update(id, (r) => {
        const call = r.calls[index];
        if (r.status !== 'waiting' || !call || call.decision) return undefined;
        // Ended, the request pressed loses its buttons even when the press beat the record of where it is.
        if (due(r.expiresAt, at)) return { ...r, status: 'ended', calls: r.calls.map((c, i) => (i === index && !c.messageId && pressedOn ? { ...c, messageId: pressedOn } : c)) };
        return { ...r, calls: r.calls.map((c, i) => (i === index ? { ...c, decision: { approved: decision.approved, by: decision.by, at } } : c)) };
      });
      if (!changed || !record) return { pressed: { ok: false, message: 'This call was already decided, or its run has ended.' } };
      const read = readWaitingTurn(record);
      if (!read.ok) return { pressed: { ok: false, message: await endings.unreadable(client, unreadableOf(record, read.why), pressedOn) } };
      const opened: OpenedTurn = { record, ...read.value };
      if (record.status === 'ended') {
        await endings.expire(client, opened);
        return { pressed: { ok: false, message: `Too late: this call waited ${waitedFor(record)} for a decision and its time ran out, so it was not run and its run has ended. Ask again if you still need it.` } };
      }
      const call = record.calls[index]!;
      // The request pressed is the call's, even when a press beat the record of where it was posted.
      const requestId = call.messageId ?? pressedOn;
      const messages = placeMessages(client, opened.waiting.turn.place);
      const verdict = `${decision.approved ? '✅ Approved' : '⛔ Denied'} by **${escapeDisplayName(decision.by.name)}**.`;
      if (requestId) await messages.edit(requestId, { content: `🔐 ${call.described}\n${verdict}`, components: [] }).catch(() => undefined);
      if (record.guildId) {
        const action = decision.approved ? 'tools.approval.approved' : 'tools.approval.denied';
        await deps.audit(record.guildId, { actorId: decision.by.id, actorName: decision.by.name, action, detail: `${decision.approved ? 'approved' : 'denied'} ${call.described.slice(0, TEXT_CAPS.echo)}`, ...(decision.via ? { via: decision.via } : {}) });
      }
      const ready = await advance(client, opened);
      return { pressed: { ok: true }, ...(ready ? { ready } : {}) };
    },

    /** Stop pressed while it waits: the turn ends, what it did so far is kept. */
    stop: (client: Client<true>, id: string) => endings.endIfWaiting(client, id, '⏹️ Not run: the run was stopped.', formatFailure({ reason: 'aborted' }), true),

    /** How many turns wait for a person in a thread (a first run that waits has nothing saved yet). */
    inThread: async (threadId: string): Promise<number> => (await endings.waitingIn(threadId)).length,

    /** `/reset` in its thread: its turns that wait end and nothing of them is kept; how many. */
    async dropInThread(client: Client<true>, threadId: string): Promise<number> {
      let dropped = 0;
      for (const id of await endings.waitingIn(threadId)) {
        if (await endings.endIfWaiting(client, id, "⏹️ Not run: the thread's memory was cleared.", undefined, false)) dropped++;
      }
      return dropped;
    },

    sweep: endings.sweep,
  };

  /**
   * After a decision: ask about the next call of the step, or, when every call is decided, hand the turn
   * back ready to go on (the one press that moves it on does; another, racing, sees it moving).
   */
  async function advance(client: Client<true>, opened: OpenedTurn): Promise<ReadyToResume | undefined> {
    const { record, waiting, state } = opened;
    const messages = placeMessages(client, waiting.turn.place);
    const index = record.calls.findIndex((c) => !c.decision);
    if (index === -1) {
      const moving = await store.update(record.id, (r) => (r.status === 'waiting' ? { ...r, status: 'resuming', expiresAt: deps.now().getTime() + RESUMING_GRACE_MS } : undefined));
      if (!moving.changed || !moving.record) return undefined;
      // The Stop button moves to the resumed run's log.
      if (waiting.stopMessage) await messages.edit(waiting.stopMessage.messageId, { components: [] }).catch(() => undefined);
      const { turn, asked } = waiting;
      return {
        kind: 'resume',
        client,
        turn,
        request: { ...payerMessage(turn), logFields: turn.logFields },
        resume: { state, decisions: decisionsOf(moving.record), asked },
        // Its record goes once the turn is over, however it ended (waiting again, it is kept under a new id).
        ended: () => store.remove(record.id).catch((error) => logger.warn({ err: error, turnId: record.id }, 'could not remove a resumed waiting turn; the sweep removes it')),
      };
    }
    const call = record.calls[index]!;
    let messageId: string | undefined;
    try {
      messageId = await messages.post(requestText(call, Math.max(0, record.expiresAt - deps.now().getTime())), [approvalRow(`${record.id}:${index}`)]);
    } catch (error) {
      logger.warn({ err: error, turnId: record.id }, 'could not ask about the next waiting call; it is not run');
    }
    // A request that could not be posted cannot be answered: that call is not run, and the turn goes on.
    const bot = { id: 'threadwise', name: 'threadwise' };
    const { record: after } = await store.update(record.id, (r) =>
      r.status !== 'waiting' ? undefined : { ...r, calls: r.calls.map((c, i) => (i !== index ? c : messageId ? { ...c, messageId } : { ...c, decision: { approved: false, by: bot, at: deps.now().getTime() } })) },
    );
    return !messageId && after ? advance(client, { ...opened, record: after }) : undefined;
  }
}

export type WaitingTurns = ReturnType<typeof createWaitingTurns>;

/** How long a turn may stay "resuming" before the sweep takes it for one whose process died. */
const RESUMING_GRACE_MS = 60 * 60_000;

/** The decisions, as the engine's resume takes them. */
function decisionsOf(record: WaitingTurnRecord): Record<string, CallDecision> {
  return Object.fromEntries(
    record.calls.map((c) => [c.callId, c.decision?.approved ? { approved: true, by: c.decision.by.id } : { approved: false, note: `The call ${c.described} was not run: a person denied it. Carry on without it, or explain what you wanted it for.` }]),
  );
}
