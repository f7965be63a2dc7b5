/**
 * What happens to a turn that waits for a person, after its run has stopped (approvals.ts): Approve or
 * Deny on each call (the next call is asked about once one is decided; the last decision resumes the
 * turn through the pipeline), Stop, `/reset`, and the sweep that ends turns nobody decided in time. Each
 * change is a compare-and-swap on the turn's record in the shared storage, so two people pressing at
 * once, or a press racing the sweep, settle one way only: the tool runs once or not at all. A press at
 * or past the deadline is late however far away the sweep is: it ends the turn as the sweep would.
 */
import type { Client } from 'discord.js';
import type { CallDecision, RunState } from '../../agent/engine.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { formatMs } from '../../duration.js';
import type { Logger } from '../../logger.js';
import type { ChangeRecord } from '../../policy/index.js';
import type { ConversationStore, WaitingTurnRecord, WaitingTurnStore } from '../../state/index.js';
import { formatFailure } from '../posting/format-steps.js';
import { approvalRow } from '../posting/run-components.js';
import { placeMessages } from '../posting/target.js';
import { requestText, waitingTurnOf } from './approvals.js';
import { askersOf, conversationOf } from './record.js';

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
}

export interface WaitingTurnsDeps {
  store: WaitingTurnStore;
  conversations: Pick<ConversationStore, 'append'>;
  /** Records a decision in the guild's audit log and log channel (the audit writer). */
  audit(guildId: string, record: ChangeRecord): Promise<void>;
  /** Goes on with a turn whose every waiting call is decided (the pipeline's resume). */
  resume(client: Client<true>, record: WaitingTurnRecord, decisions: Record<string, CallDecision>): Promise<void>;
  timeoutMs: number;
  now: () => Date;
  logger: Logger;
}

/** Why a press did nothing, for the person who pressed. */
export type Pressed = { ok: true } | { ok: false; message: string };

export function createWaitingTurns(deps: WaitingTurnsDeps) {
  const { store, logger } = deps;

  /** Save whole steps, edit the requests still open, take the Stop button off the log, say how it ended. */
  async function end(client: Client<true>, record: WaitingTurnRecord, verdict: string, note: string | undefined, save: boolean): Promise<void> {
    const { turn, asked, stopMessage } = waitingTurnOf(record);
    const messages = placeMessages(client, turn.place);
    const attempt = (what: string, op: () => Promise<unknown>) => op().catch((error) => logger.warn({ err: error, turnId: record.id }, `could not ${what} of a waiting turn`));
    const threadId = conversationOf(turn.place);
    // What was said and the steps that finished are kept, as for any run that stopped (before the thread
    // is told); not after /reset.
    if (save && threadId) {
      const state = record.state as RunState;
      await attempt('save the exchange', () => deps.conversations.append(threadId, [...asked, ...state.added], state.usage));
    }
    for (const call of record.calls) {
      if (call.messageId && !call.decision) await attempt('edit the approval request', () => messages.edit(call.messageId!, { content: `🔐 ${call.described}\n${verdict}`, components: [] }));
    }
    if (stopMessage) await attempt('take the Stop button off', () => messages.edit(stopMessage.messageId, { components: [] }));
    if (note) await attempt('post how it ended', () => messages.post(note));
    await store.remove(record.id).catch((error) => logger.warn({ err: error, turnId: record.id }, 'could not remove an ended waiting turn; the sweep removes it'));
  }

  /** End a turn that still waits (true), or do nothing when it was decided, stopped or ended meanwhile. */
  async function endIfWaiting(client: Client<true>, id: string, verdict: string, note: string | undefined, save: boolean): Promise<boolean> {
    const { record, changed } = await store.update(id, (r) => (r.status === 'waiting' ? { ...r, status: 'ended' } : undefined));
    if (!changed || !record) return false;
    await end(client, record, verdict, note, save);
    return true;
  }

  return {
    /**
     * Who may decide call `index` of a waiting turn (or stop it, without an index): anyone it answers, and
     * moderators (checked by the caller); a call the tool held back for its owner, only the people it
     * names. Undefined when it no longer waits.
     */
    async whoMay(id: string, index?: number): Promise<{ askers: string[]; only?: ReadonlyArray<{ id: string; name: string }> } | undefined> {
      const record = await store.get(id);
      if (!record || record.status !== 'waiting') return undefined;
      const only = index === undefined ? undefined : record.calls[index]?.approvers;
      return { askers: askersOf(waitingTurnOf(record).turn), ...(only?.length ? { only } : {}) };
    },

    /** Approve or Deny call `index` of turn `id`. The last decision resumes the turn. */
    async decide(client: Client<true>, id: string, index: number, decision: ApprovalDecision, pressedOn?: string): Promise<Pressed> {
      const at = deps.now().getTime();
      // The deadline is checked in the same compare-and-swap as the decision: a press at or past it ends
      // the wait instead (the sweep may be a minute away), and a press racing the sweep lands one way only.
      const { record, changed } = await store.update(id, (r) => {
        const call = r.calls[index];
        if (r.status !== 'waiting' || !call || call.decision) return undefined;
        // Ended, the request pressed loses its buttons even when the press beat the record of where it is.
        if (due(r.expiresAt, at)) return { ...r, status: 'ended', calls: r.calls.map((c, i) => (i === index && !c.messageId && pressedOn ? { ...c, messageId: pressedOn } : c)) };
        return { ...r, calls: r.calls.map((c, i) => (i === index ? { ...c, decision: { ...decision, at } } : c)) };
      });
      if (!changed || !record) return { ok: false, message: 'This call was already decided, or its run has ended.' };
      if (record.status === 'ended') {
        await expire(client, record);
        return { ok: false, message: `Too late: this call waited ${waitedFor(record)} for a decision and its time ran out, so it was not run and its run has ended. Ask again if you still need it.` };
      }
      const call = record.calls[index]!;
      const { turn } = waitingTurnOf(record);
      // The request pressed is the call's, even when a press beat the record of where it was posted.
      const requestId = call.messageId ?? pressedOn;
      const messages = placeMessages(client, turn.place);
      const verdict = `${decision.approved ? '✅ Approved' : '⛔ Denied'} by **${escapeDisplayName(decision.by.name)}**.`;
      if (requestId) await messages.edit(requestId, { content: `🔐 ${call.described}\n${verdict}`, components: [] }).catch(() => undefined);
      if (record.guildId) {
        const action = decision.approved ? 'tools.approval.approved' : 'tools.approval.denied';
        await deps.audit(record.guildId, { actorId: decision.by.id, actorName: decision.by.name, action, detail: `${decision.approved ? 'approved' : 'denied'} ${call.described.slice(0, 200)}` });
      }
      await advance(client, record);
      return { ok: true };
    },

    /** Stop pressed while it waits: the turn ends, what it did so far is kept. */
    stop: (client: Client<true>, id: string) => endIfWaiting(client, id, '⏹️ Not run: the run was stopped.', formatFailure({ reason: 'aborted' }), true),

    /** How many turns wait for a person in a thread (a first run that waits has nothing saved yet). */
    inThread: async (threadId: string): Promise<number> => (await waitingIn(threadId)).length,

    /** `/reset` in its thread: its turns that wait end and nothing of them is kept; how many. */
    async dropInThread(client: Client<true>, threadId: string): Promise<number> {
      let dropped = 0;
      for (const id of await waitingIn(threadId)) {
        if (await endIfWaiting(client, id, "⏹️ Not run: the thread's memory was cleared.", undefined, false)) dropped++;
      }
      return dropped;
    },

    /**
     * End the turns of the guilds `holds` says are this process's whose time is up. A turn left
     * resuming by a process that died goes too (the run journal already told its thread).
     */
    async sweep(client: Client<true>): Promise<void> {
      // A guild's turns are ended by the process that holds it (DMs: the one with shard 0).
      const holds = (guildId: string | null) => (guildId ? client.guilds.cache.has(guildId) : client.ws.shards.has(0));
      const now = deps.now().getTime();
      for (const entry of await store.list()) {
        if (!due(entry.expiresAt, now) || !holds(entry.guildId)) continue;
        const record = await store.get(entry.id);
        if (!record) {
          await store.remove(entry.id);
          continue;
        }
        if (!due(record.expiresAt, now)) continue;
        if (record.status !== 'waiting') {
          await store.remove(record.id);
          continue;
        }
        const { record: ending, changed } = await store.update(record.id, (r) => (r.status === 'waiting' ? { ...r, status: 'ended' } : undefined));
        if (changed && ending) await expire(client, ending);
      }
    },
  };

  /** The ids of the turns that wait in a thread (a turn is kept under the thread it posts in). */
  async function waitingIn(threadId: string): Promise<string[]> {
    const ids: string[] = [];
    for (const entry of await store.list()) {
      const record = await store.get(entry.id);
      if (record?.channelId === threadId && record.status === 'waiting') ids.push(entry.id);
    }
    return ids;
  }

  /** A turn whose time ran out, now marked ended (by the sweep or a late press): audited, its thread told, what it did kept. */
  async function expire(client: Client<true>, ending: WaitingTurnRecord): Promise<void> {
    const waited = waitedFor(ending);
    if (ending.guildId) {
      const calls = ending.calls.filter((c) => !c.decision).map((c) => c.described).join(', ');
      await deps.audit(ending.guildId, { actorId: client.user.id, actorName: 'threadwise', action: 'tools.approval.timeout', detail: `did not run ${calls.slice(0, 200)}: nobody approved it in time` });
    }
    await end(client, ending, `⌛ Not run: no decision within ${waited}.`, `⌛ This run waited ${waited} for an approval nobody gave, so it has ended. Ask again if you still need it.`, true);
  }

  /**
   * After a decision: ask about the next call of the step, or, when every call is decided, resume the
   * turn (the one press that moves it on does; another, racing, sees it moving).
   */
  async function advance(client: Client<true>, record: WaitingTurnRecord): Promise<void> {
    const index = record.calls.findIndex((c) => !c.decision);
    if (index === -1) {
      const moving = await store.update(record.id, (r) => (r.status === 'waiting' ? { ...r, status: 'resuming', expiresAt: deps.now().getTime() + RESUMING_GRACE_MS } : undefined));
      // The turn goes on in the background: the press is answered at once.
      if (moving.changed && moving.record) {
        const resuming = moving.record;
        void deps.resume(client, resuming, decisionsOf(resuming)).catch((error) => logger.error({ err: error, turnId: resuming.id }, 'a turn resumed after its approvals failed'));
      }
      return;
    }
    const call = record.calls[index]!;
    const messages = placeMessages(client, waitingTurnOf(record).turn.place);
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
    if (!messageId && after) await advance(client, after);
  }
}

export type WaitingTurns = ReturnType<typeof createWaitingTurns>;

/** Whether a wait's time is up at `now`: at its deadline already, so a press at the very moment is late. */
function due(expiresAt: number, now: number): boolean {
  return now >= expiresAt;
}

/** How long a turn waited for its decisions, as its thread and the presser are told. */
function waitedFor(record: WaitingTurnRecord): string {
  return formatMs(record.expiresAt - record.createdAt);
}

/** How long a turn may stay "resuming" before the sweep takes it for one whose process died. */
const RESUMING_GRACE_MS = 60 * 60_000;

/** The decisions, as the engine's resume takes them. */
function decisionsOf(record: WaitingTurnRecord): Record<string, CallDecision> {
  return Object.fromEntries(
    record.calls.map((c) => [c.callId, c.decision?.approved ? { approved: true, by: c.decision.by.id } : { approved: false, note: `The call ${c.described} was not run: a person denied it. Carry on without it, or explain what you wanted it for.` }]),
  );
}
