/**
 * How a turn that waits for a person ends without going on (the sweep that finds those whose time is up
 * included): stopped, `/reset`, its time up, or found
 * unreadable (its saved record, turn or engine state of another version of the bot, or damaged). What
 * was said and the steps that finished are kept (not after `/reset`, and not what cannot be read), the
 * requests still open lose their buttons, the thread is told how it ended, and the record goes. An
 * unreadable turn is never left to vanish: its thread hears it has ended, and so does whoever pressed.
 */
import type { Client } from 'discord.js';
import type { Unreadable } from '../../agent/saved.js';
import { formatMs } from '../../duration.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';
import type { Logger } from '../../logger.js';
import type { ChangeRecord } from '../../policy/index.js';
import type { ConversationStore, UnreadableWaitingTurn, WaitingTurnRecord, WaitingTurnStore } from '../../state/index.js';
import { placeMessages } from '../posting/target.js';
import { openWaiting, type OpenedTurn } from './approvals.js';
import { conversationOf } from './record.js';

export interface EndingDeps {
  store: WaitingTurnStore;
  conversations: Pick<ConversationStore, 'append'>;
  /** Records the end in the guild's audit log and log channel (the audit writer). */
  audit(guildId: string, record: ChangeRecord): Promise<void>;
  logger: Logger;
  now: () => Date;
}

/** Whether a wait's time is up at `now`: at its deadline already, so a press at the very moment is late. */
export function due(expiresAt: number, now: number): boolean {
  return now >= expiresAt;
}

/** How long a turn waited for its decisions, as its thread and the presser are told. */
export function waitedFor(record: Pick<WaitingTurnRecord, 'expiresAt' | 'createdAt'>): string {
  return formatMs(record.expiresAt - record.createdAt);
}

/** Why a saved turn cannot be read back, in the words its thread and the presser read. */
function whyText(why: Unreadable): string {
  return why.kind === 'version' ? 'it was saved by another version of the bot' : 'it is damaged';
}

export function createEndings(deps: EndingDeps) {
  const { store, logger } = deps;
  const attempt = (id: string, what: string, op: () => Promise<unknown>) => op().catch((error) => logger.warn({ err: error, turnId: id }, `could not ${what} of a waiting turn`));

  /** Save whole steps (`save`), edit the requests still open, take the Stop button off the log, say how it ended. */
  async function end(client: Client<true>, { record, waiting, state }: OpenedTurn, verdict: string, note: string | undefined, save: boolean): Promise<void> {
    const { turn, asked, stopMessage } = waiting;
    const messages = placeMessages(client, turn.place);
    const threadId = conversationOf(turn.place);
    // What was said and the steps that finished are kept, as for any run that stopped (before the
    // thread is told); not after /reset.
    if (save && threadId) await attempt(record.id, 'save the exchange', () => deps.conversations.append(threadId, [...asked, ...state.added], state.usage));
    for (const call of record.calls) {
      if (call.messageId && !call.decision) await attempt(record.id, 'edit the approval request', () => messages.edit(call.messageId!, { content: `🔐 ${call.described}\n${verdict}`, components: [] }));
    }
    if (stopMessage) await attempt(record.id, 'take the Stop button off', () => messages.edit(stopMessage.messageId, { components: [] }));
    if (note) await attempt(record.id, 'post how it ended', () => messages.post(note));
    await store.remove(record.id).catch((error) => logger.warn({ err: error, turnId: record.id }, 'could not remove an ended waiting turn; the sweep removes it'));
  }

  /** A turn whose time ran out, now marked ended (by the sweep or a late press): audited, its thread told, what it did kept. */
  async function expire(client: Client<true>, ending: OpenedTurn): Promise<void> {
    const { record } = ending;
    const waited = waitedFor(record);
    if (record.guildId) {
      const calls = record.calls.filter((c) => !c.decision).map((c) => c.described).join(', ');
      await deps.audit(record.guildId, { actorId: client.user.id, actorName: 'threadwise', action: 'tools.approval.timeout', detail: `did not run ${calls.slice(0, TEXT_CAPS.echo)}: nobody approved it in time` });
    }
    await end(client, ending, `⌛ Not run: no decision within ${waited}.`, `⌛ This run waited ${waited} for an approval nobody gave, so it has ended. Ask again if you still need it.`, true);
  }

  /**
   * A turn whose saved record cannot be read back: ended in the open. Its requests (and the message
   * pressed) lose their buttons, its thread is told, the record goes; what the presser is told.
   */
  async function unreadable(client: Client<true>, turn: UnreadableWaitingTurn, pressedOn?: string): Promise<string> {
    const why = whyText(turn.why);
    logger.warn({ turnId: turn.id, channelId: turn.channelId, why: turn.why }, 'a waiting turn could not be read back; it is ended, and its thread told');
    if (turn.channelId) {
      // Only its thread is known for sure: its requests and its note go there by id.
      const messages = placeMessages(client, { kind: 'thread', threadId: turn.channelId });
      for (const id of new Set([...turn.messageIds, ...(pressedOn ? [pressedOn] : [])])) await attempt(turn.id, 'take the buttons off', () => messages.edit(id, { components: [] }));
      await attempt(turn.id, 'post how it ended', () => messages.post(`⚠️ This run was waiting for an approval, but what I saved of it cannot be read back (${why}), so it has ended and none of its waiting calls ran. Ask again if you still need it.`));
    }
    await store.remove(turn.id).catch((error) => logger.warn({ err: error, turnId: turn.id }, 'could not remove an unreadable waiting turn'));
    return `This run could not be read back (${why}), so it has ended without running anything; its thread says so. Ask again if you still need it.`;
  }

  /**
   * Mark the turn kept under `id` ended if it still waits: the turn, for the caller to end as it says;
   * undefined when it was decided, stopped or ended meanwhile. One that cannot be read is ended here, in
   * the open, and `ended` says what to tell whoever pressed.
   */
  async function take(client: Client<true>, id: string, pressedOn?: string): Promise<OpenedTurn | { ended: string } | undefined> {
    const { record, changed } = await store.update(id, (r) => (r.status === 'waiting' ? { ...r, status: 'ended' } : undefined));
    if (record && !changed) return undefined;
    const found = openWaiting(record ? { record } : await store.read(id));
    if (!found) return undefined;
    if ('unreadable' in found) return { ended: await unreadable(client, found.unreadable, pressedOn) };
    return found.opened;
  }

  return {
    expire,
    unreadable,

    /** End a turn that still waits (true), or do nothing when it was decided, stopped or ended meanwhile. */
    async endIfWaiting(client: Client<true>, id: string, verdict: string, note: string | undefined, save: boolean): Promise<boolean> {
      const taken = await take(client, id);
      if (taken && 'record' in taken) await end(client, taken, verdict, note, save);
      return taken !== undefined;
    },

    /** The ids of the turns that wait in a thread (a turn is kept under the thread it posts in), readable or not. */
    async waitingIn(threadId: string): Promise<string[]> {
      const ids: string[] = [];
      for (const entry of await store.list()) {
        const kept = await store.read(entry.id);
        const where = kept && ('record' in kept ? kept.record.status === 'waiting' && kept.record.channelId : kept.unreadable.channelId);
        if (where === threadId) ids.push(entry.id);
      }
      return ids;
    },

    /**
     * End the turns of the guilds this process holds whose time is up. A turn left resuming by a
     * process that died goes too (the run journal already told its thread).
     */
    async sweep(client: Client<true>): Promise<void> {
      // A guild's turns are ended by the process that holds it (DMs: the one with shard 0).
      const holds = (guildId: string | null) => (guildId ? client.guilds.cache.has(guildId) : client.ws.shards.has(0));
      const now = deps.now().getTime();
      for (const entry of await store.list()) {
        if (!due(entry.expiresAt, now) || !holds(entry.guildId)) continue;
        const kept = await store.read(entry.id);
        // The record's own deadline decides (a turn resuming has a later one than the index).
        const deadline = kept && ('record' in kept ? kept.record.expiresAt : kept.unreadable.expiresAt);
        if (deadline !== undefined && !due(deadline, now)) continue;
        if (!kept || ('record' in kept && kept.record.status !== 'waiting')) {
          await store.remove(entry.id);
          continue;
        }
        const ending = await take(client, entry.id);
        if (ending && 'record' in ending) await expire(client, ending);
      }
    },
  };
}
