/**
 * Members' 👍 and 👎 on answers, per guild, in the shared storage (so a vote press works in whichever
 * process holds the guild, after a restart too). Each answered turn is one record, kept as a one-entry
 * log so that a vote is a compare-and-swap (the backend's `replace`): two members pressing at once both
 * land. Three indexes, each an append-only log of ids: the guild's answers by day (summaries and exports
 * read only the days asked for), a thread's answers (`/reset` and a deleted question remove their text)
 * and a member's votes (`/memory export`).
 *
 * The conversation TTL applies: a record expires `ttlMs` after its answer, so it never outlives the
 * thread's memory of that exchange. An expired record reads as gone and is removed when read; on Redis
 * the keys also expire by themselves, and elsewhere each guild's expired days are swept once a day, on
 * its next answer.
 */
import { StorageError } from '../../errors.js';
import type { LogEntry } from '../../storage/key-value.js';
import type { Backend } from '../../storage/registry.js';
import { guarded } from '../../storage/storage-failure.js';
import { checkId } from '../conversation-store.js';
import type { StorageLogger } from '../types.js';
import { decodeRecord, encodeRecord, withoutText, type AnsweredTurn, type FeedbackRecord } from './feedback-record.js';
import { dailySweep, DAY_MS, dayOf, feedbackKeys } from './feedback-sweep.js';

/**
 * A member's press: 👍, or 👎 with its reason (`undefined`: keep the reason a 👎 already has); `on` is
 * the message it was pressed on, which becomes the answer's link if it has none yet.
 */
export type VoteInput = ({ vote: 'up' } | { vote: 'down'; reason?: string }) & { on?: string };

/** What a vote did: recorded (with the member's vote before, if any), or there is no such answer (anymore). */
export type VoteOutcome = { status: 'recorded'; before?: 'up' | 'down'; record: FeedbackRecord } | { status: 'missing' };

/** One of a member's votes, for their `/memory export`. */
export interface MemberVote {
  record: FeedbackRecord;
  vote: FeedbackRecord['votes'][string];
}

export interface FeedbackStore {
  /** Keep an answered turn, with no votes yet. */
  save(answer: AnsweredTurn): Promise<void>;
  /** Forget an answer altogether (it was kept, then could not be posted). */
  remove(guildId: string, id: string): Promise<void>;
  /** The record of answer `id`; undefined when there is none, it cannot be read, or it expired. */
  get(guildId: string, id: string): Promise<FeedbackRecord | undefined>;
  /** Set a member's vote on answer `id` (one per member: a new press replaces it). */
  vote(guildId: string, id: string, userId: string, input: VoteInput, at?: number): Promise<VoteOutcome>;
  /** The guild's answers since `since` (epoch ms), newest first, at most `limit`; `more` when some were left out. */
  list(guildId: string, since: number, limit: number): Promise<{ records: FeedbackRecord[]; more: boolean }>;
  /** `/reset`: the text of every answer in the thread goes (votes stay counted). How many records changed. */
  forgetThread(threadId: string): Promise<number>;
  /** A question deleted: the text of the answers to it goes. How many records changed. */
  forgetMessage(threadId: string, messageId: string): Promise<number>;
  /** A member's votes in a guild, oldest first. */
  votesOf(guildId: string, userId: string): Promise<MemberVote[]>;
}

export interface FeedbackStoreOptions {
  backend: Backend;
  namespace: string;
  /** The conversation TTL (CONVERSATION_TTL_DAYS): records expire this long after their answer. */
  ttlMs?: number;
  now: () => Date;
  logger: StorageLogger;
}

/** Concurrent writers on one record are a handful of presses; past this many lost races something is wrong. */
const MAX_ATTEMPTS = 20;
/** Records read at once (a summary of a busy month reads thousands). */
const READ_BATCH = 16;

export function createFeedbackStore(options: FeedbackStoreOptions): FeedbackStore {
  const { backend, namespace, ttlMs, now, logger } = options;
  const keys = feedbackKeys(namespace);
  const { record: recordKey, day: dayKey, thread: threadKey, member: memberKey } = keys;
  const call = <T>(action: string, op: () => Promise<T>) => guarded(backend.kind, backend.where, `feedback ${action}`, op);
  const expired = (record: FeedbackRecord) => ttlMs !== undefined && now().getTime() - record.at > ttlMs;
  const sweep = dailySweep({ backend, keys, ttlMs, now });

  async function readOne(guildId: string, id: string): Promise<{ entry: LogEntry; record: FeedbackRecord } | undefined> {
    const key = recordKey(guildId, id);
    const [entry] = await call('read', () => backend.read(key));
    if (!entry) return undefined;
    const decoded = decodeRecord(entry.raw);
    if (!decoded.ok) {
      logger({ level: 'warn', code: 'corrupt-record', guildId, message: `The feedback record ${key} could not be read (${decoded.reason}); it is left out and left as is.` });
      return undefined;
    }
    if (expired(decoded.record)) {
      await call('expire', () => backend.remove(key));
      return undefined;
    }
    return { entry, record: decoded.record };
  }

  /** Change a record by compare-and-swap, read again when another writer got there first. */
  async function update(guildId: string, id: string, change: (record: FeedbackRecord) => FeedbackRecord | undefined): Promise<FeedbackRecord | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const found = await readOne(guildId, id);
      if (!found) return undefined;
      const next = change(found.record);
      if (!next) return found.record;
      if (await call('update', () => backend.replace(recordKey(guildId, id), found.entry, encodeRecord(next)))) return next;
    }
    throw new StorageError(`Storage feedback update failed on ${backend.kind} (${backend.where}): the record kept changing under ${MAX_ATTEMPTS} attempts. Try again.`);
  }

  async function readMany(guildId: string, ids: readonly string[]): Promise<FeedbackRecord[]> {
    const records: FeedbackRecord[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += READ_BATCH) {
      const batch = await Promise.all(unique.slice(i, i + READ_BATCH).map((id) => readOne(guildId, id)));
      for (const found of batch) if (found) records.push(found.record);
    }
    return records;
  }

  async function strip(threadId: string, why: 'reset' | 'deleted', pick: (record: FeedbackRecord) => boolean): Promise<number> {
    let changed = 0;
    for (const entry of await call('read', () => backend.read(threadKey(threadId)))) {
      const listed = parseListed(entry.raw);
      if (!listed) continue;
      const after = await update(listed.g, listed.id, (record) => (pick(record) && !record.removed ? withoutText(record, why) : undefined));
      if (after?.removed === why) changed++;
    }
    return changed;
  }

  return {
    async save(answer) {
      const record: FeedbackRecord = { v: 1, ...answer, votes: {} };
      const raw = encodeRecord(record);
      // Side by side (it is on the answer's path): an index entry whose record is missing is skipped by every reader.
      await Promise.all([
        call('save', () => backend.append(recordKey(record.guildId, record.id), raw, ttlMs)),
        call('index', () => backend.append(dayKey(record.guildId, dayOf(record.at)), checkId('answer', record.id), ttlMs)),
        record.threadId ? call('index', () => backend.append(threadKey(record.threadId!), JSON.stringify({ g: record.guildId, id: record.id }), ttlMs)) : undefined,
      ]);
      await sweep(record.guildId).catch((error: unknown) =>
        logger({ level: 'warn', code: 'backend-error', guildId: record.guildId, message: `Could not sweep expired feedback of guild ${record.guildId}: ${(error as Error).message}` }),
      );
    },

    async remove(guildId, id) {
      // Its index entries stay: a reader skips an id whose record is gone.
      await call('remove', () => backend.remove(recordKey(guildId, id)));
    },

    get: async (guildId, id) => (await readOne(guildId, id))?.record,

    async vote(guildId, id, userId, input, at = now().getTime()) {
      let before: 'up' | 'down' | undefined;
      const record = await update(guildId, id, (current) => {
        const mine = current.votes[userId];
        before = mine?.vote;
        const reason = input.vote === 'down' ? (input.reason ?? (mine?.vote === 'down' ? mine.reason : undefined)) : undefined;
        const vote = { vote: input.vote, ...(reason ? { reason } : {}), at };
        const messageId = current.messageId ?? input.on;
        if (mine && mine.vote === vote.vote && mine.reason === vote.reason && messageId === current.messageId) return undefined;
        return { ...current, ...(messageId ? { messageId } : {}), votes: { ...current.votes, [userId]: vote } };
      });
      if (!record) return { status: 'missing' };
      // The member's own index, once per answer: their export finds their votes there.
      if (!before) await call('index', () => backend.append(memberKey(guildId, userId), id, ttlMs));
      return { status: 'recorded', ...(before ? { before } : {}), record };
    },

    async list(guildId, since, limit) {
      const ids: string[] = [];
      for (let day = dayOf(since); day <= dayOf(now().getTime()); day = dayOf(Date.parse(day) + DAY_MS)) {
        for (const entry of await call('read', () => backend.read(dayKey(guildId, day)))) ids.push(entry.raw);
      }
      // Newest first: a day's log is in answer order, so the newest ids are at the end.
      const wanted = ids.reverse();
      const records: FeedbackRecord[] = [];
      let more = false;
      for (let i = 0; i < wanted.length; i += READ_BATCH * 4) {
        const batch = (await readMany(guildId, wanted.slice(i, i + READ_BATCH * 4))).filter((r) => r.at >= since);
        for (const record of batch) {
          if (records.length >= limit) more = true;
          else records.push(record);
        }
        if (more) break;
      }
      return { records: records.sort((a, b) => b.at - a.at), more };
    },

    async forgetThread(threadId) {
      const changed = await strip(threadId, 'reset', () => true);
      await call('forget', () => backend.remove(threadKey(threadId)));
      return changed;
    },

    forgetMessage: (threadId, messageId) => strip(threadId, 'deleted', (record) => record.questionIds.includes(messageId)),

    async votesOf(guildId, userId) {
      const key = memberKey(guildId, userId);
      const entries = await call('read', () => backend.read(key));
      const votes: MemberVote[] = [];
      let dead: LogEntry | undefined;
      for (let i = 0; i < entries.length; i += READ_BATCH) {
        const slice = entries.slice(i, i + READ_BATCH);
        const found = await Promise.all(slice.map((e) => readOne(guildId, e.raw)));
        found.forEach((f, j) => {
          const vote = f?.record.votes[userId];
          if (vote) votes.push({ record: f.record, vote });
          // Answers gone (expired, or never voted on after all) at the head of the index are trimmed.
          else if (votes.length === 0) dead = slice[j];
        });
      }
      if (dead) await call('trim', () => backend.remove(key, dead));
      return votes.sort((a, b) => a.vote.at - b.vote.at);
    },
  };
}

function parseListed(raw: string): { g: string; id: string } | undefined {
  try {
    const value = JSON.parse(raw) as { g?: unknown; id?: unknown };
    return typeof value.g === 'string' && typeof value.id === 'string' ? { g: value.g, id: value.id } : undefined;
  } catch {
    return undefined;
  }
}
