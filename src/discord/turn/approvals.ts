/**
 * Approval before risky tools, as an interruption. A call to a tool a moderator marked `ask`
 * (`/tools approval`) stops the run with its state (the engine's `approval` rule); the turn keeps that
 * state in the shared storage (waiting-turns.ts), asks in the thread with Approve and Deny, and gives
 * back its concurrency slot: a turn waiting for a person holds nothing but its record. The calls of one
 * step are asked about one at a time, in call order. Whoever decides, in whichever process holds the
 * guild and however much later, resumes the turn from that state; Stop (still on the step log) ends it.
 * What is kept is versioned and read back through zod (`openWaiting`): the turn here, the engine's state
 * in src/agent/run-state.ts. A record of another version, or damaged, is never resumed on a guess.
 */
import { z } from 'zod';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { describeAction } from '../../agent/describe.js';
import type { Interruption, RunState } from '../../agent/engine.js';
import { chatMessageSchema } from '../../agent/message-schema.js';
import { readRunState } from '../../agent/run-state.js';
import { readSaved, type Read, type Unreadable } from '../../agent/saved.js';
import { formatMs } from '../../duration.js';
import type { NewMessage, UnreadableWaitingTurn, WaitingTurnRead, WaitingTurnRecord, WaitingTurnStore } from '../../state/index.js';
import { inlineCode } from '../posting/format-steps.js';
import { approvalRow } from '../posting/run-components.js';
import type { MessageRef } from '../posting/target.js';
import type { TurnOutcome } from './outcome.js';
import type { ThreadView } from './thread-view.js';
import { askersOf, MessageRefSchema, TurnRecordSchema, type TurnRecord } from './record.js';

/** The version of WaitingTurn this bot writes and reads. Bump it when the shape changes. */
export const WAITING_TURN_VERSION = 1;
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** What the Discord layer keeps of a waiting turn beside the engine's state (the record's `turn`). */
export interface WaitingTurn {
  v: typeof WAITING_TURN_VERSION;
  turn: TurnRecord;
  /** The people's messages as the model was given them (files read), saved with the exchange at its end. */
  asked: NewMessage[];
  /** The step log message that carries the Stop button while it waits. */
  stopMessage?: MessageRef;
}

/** WaitingTurn as saved, field for field: read back, it is checked whole. */
const WaitingTurnSchema = z.object({
  v: z.literal(WAITING_TURN_VERSION),
  turn: TurnRecordSchema,
  asked: z.array(chatMessageSchema({ author: z.object({ id: z.string(), name: z.string() }).optional(), at: z.number().optional(), messageId: z.string().optional() })),
  stopMessage: MessageRefSchema.optional(),
});

/** A waiting turn read back whole: its record, the Discord layer's turn and the engine's state. */
export interface OpenedTurn {
  record: WaitingTurnRecord;
  waiting: WaitingTurn;
  state: RunState;
}

/**
 * What is kept under a waiting turn's id, checked: the turn whole, one that cannot be read (its record,
 * its turn or its state of another version, or damaged) with what can be told of it, or nothing.
 */
export function openWaiting(kept: WaitingTurnRead | undefined): { opened: OpenedTurn } | { unreadable: UnreadableWaitingTurn } | undefined {
  if (!kept || 'unreadable' in kept) return kept;
  const read = readWaitingTurn(kept.record);
  return read.ok ? { opened: { record: kept.record, ...read.value } } : { unreadable: unreadableOf(kept.record, read.why) };
}

/** A record whose own fields read but whose turn or state does not: what can be told of it (its requests, its Stop button). */
export function unreadableOf(record: WaitingTurnRecord, why: Unreadable): UnreadableWaitingTurn {
  const stop = z.object({ stopMessage: MessageRefSchema }).safeParse(record.turn);
  const messageIds = [...record.calls.flatMap((c) => (c.messageId ? [c.messageId] : [])), ...(stop.success ? [stop.data.stopMessage.messageId] : [])];
  return { id: record.id, why, channelId: record.channelId, guildId: record.guildId, expiresAt: record.expiresAt, messageIds };
}

/** A waiting record's two saved parts read back: the Discord layer's turn and the engine's state, or why they cannot be used. */
export function readWaitingTurn(record: Pick<WaitingTurnRecord, 'turn' | 'state'>): Read<{ waiting: WaitingTurn; state: RunState }> {
  const waiting = readSaved<WaitingTurn>(WaitingTurnSchema, WAITING_TURN_VERSION, record.turn);
  if (!waiting.ok) return waiting;
  const state = readRunState(record.state);
  return state.ok ? { ok: true, value: { waiting: waiting.value, state: state.value } } : state;
}

/** A call as a person is shown it: one line of code its text cannot close, never long enough to bury the buttons. */
export function shownCall(tool: string, input: unknown): string {
  return inlineCode(describeAction(tool, input), 300);
}

/** The request for a call: what it runs, why it waits when the tool says so, who may decide, for how long. */
export function requestText(call: { described: string; reason?: string; approvers?: ReadonlyArray<{ name: string }> }, timeoutMs: number): string {
  const reason = call.reason ? `\n-# Why: ${escapeDisplayName(call.reason, TEXT_CAPS.approvalReason)}.` : '';
  const who = call.approvers?.length ? `Only ${call.approvers.map((a) => `**${escapeDisplayName(a.name)}**`).join(' or ')} can decide.` : 'The person who asked, or a moderator, can decide.';
  return `🔐 **Approval needed** before I run ${call.described}${reason}\n-# ${who} Waiting up to ${formatMs(timeoutMs)}.`;
}

export interface WaitDeps {
  store: WaitingTurnStore;
  timeoutMs: number;
  now: () => Date;
}

/**
 * The run stopped at calls that need a person: keep the turn, ask about the first call, and let the
 * thread's log keep its Stop button. Resolves `waiting`, or undefined when the request could not be
 * posted (the caller goes on without those calls).
 */
export async function waitForApproval(deps: WaitDeps, turn: TurnRecord, asked: NewMessage[], interruption: Interruption, view: ThreadView): Promise<TurnOutcome | undefined> {
  const now = deps.now().getTime();
  // A turn answering through an interaction can wait only while its webhook lives.
  const expiresAt = Math.min(now + deps.timeoutMs, turn.place.kind === 'interaction' ? turn.place.expiresAt : Infinity);
  const calls = interruption.waiting.map((c) => ({
    callId: c.callId,
    tool: c.tool,
    described: shownCall(c.tool, c.input),
    // A call the tool itself held back (a note nobody asked for) is decided by the people it names alone.
    ...(c.approval ? { reason: c.approval.reason } : {}),
    ...(c.approval?.approvers?.length ? { approvers: c.approval.approvers.map((a) => ({ id: a.id, name: a.name })) } : {}),
  }));
  const waiting: WaitingTurn = { v: WAITING_TURN_VERSION, turn, asked };
  const record: WaitingTurnRecord = {
    v: 1,
    id: turn.id,
    guildId: turn.messages[0]!.scope.guildId,
    channelId: turn.place.kind === 'thread' ? turn.place.threadId : turn.place.channelId,
    status: 'waiting',
    createdAt: now,
    expiresAt,
    calls,
    turn: waiting,
    state: interruption.state,
  };
  // Kept before it is asked: a press that comes at once finds the turn.
  await deps.store.save(record);
  let request;
  try {
    request = await view.post({ content: requestText(calls[0]!, expiresAt - now), components: [approvalRow(`${turn.id}:0`)] });
  } catch {
    await deps.store.remove(turn.id).catch(() => undefined);
    return undefined;
  }
  await deps.store.update(turn.id, (r) => ({ ...r, calls: r.calls.map((c, i) => (i === 0 ? { ...c, messageId: request.id } : c)) }));
  const stopMessage = await view.pause();
  if (stopMessage) await deps.store.update(turn.id, (r) => ({ ...r, turn: { ...(r.turn as object), stopMessage } }));
  const who = askersOf(turn).length > 1 ? 'one of the people who asked' : 'the person who asked';
  return { kind: 'waiting', message: `Waiting for ${who}, or a moderator, to approve a tool call in the thread.` };
}
