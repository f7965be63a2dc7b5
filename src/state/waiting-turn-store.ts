/**
 * Turns that wait for a person (a tool call that needs approval): each is kept in the shared storage
 * until it is decided, stopped or expired, so the wait can last hours, survive a restart and be decided
 * in whichever process holds the guild. Every change goes through `update`, a compare-and-swap on the
 * record (the backend's `replace`): two moderators pressing at once both read the record, and only one
 * write lands; the other sees the decision already made. An index lists the waiting turns for the sweep
 * that ends expired ones. A record this version cannot read back (another version wrote it, or it is
 * damaged) is not taken for gone: `read` says so, with what can be told of it, so its turn is ended in
 * the open rather than left to vanish.
 */
import { z } from 'zod';
import { readSaved, type Unreadable } from '../agent/saved.js';
import { StorageError } from '../errors.js';
import type { LogEntry } from '../storage/key-value.js';
import type { Backend } from '../storage/registry.js';
import { guarded } from '../storage/storage-failure.js';

const Decision = z.object({ approved: z.boolean(), by: z.object({ id: z.string(), name: z.string() }), at: z.number() });

/** The version of the record this store writes and reads. */
const RECORD_VERSION = 1;

const RecordSchema = z.object({
  v: z.literal(RECORD_VERSION),
  id: z.string(),
  guildId: z.string().nullable(),
  /** Where the turn posts (its thread); the sweep and the buttons find it there. */
  channelId: z.string(),
  status: z.enum(['waiting', 'resuming', 'ended']),
  createdAt: z.number(),
  expiresAt: z.number(),
  /** The calls that wait, in call order, with the message that asks about each and its decision once made. */
  calls: z.array(
    z.object({
      callId: z.string(),
      tool: z.string(),
      described: z.string(),
      /** Why the tool itself holds this call back, and who alone may decide it (a member's own memory note). */
      reason: z.string().optional(),
      approvers: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
      messageId: z.string().optional(),
      decision: Decision.optional(),
    }),
  ),
  /** The turn as its owner serialised it (who asks, where, the messages): read by the Discord layer. */
  turn: z.unknown(),
  /** The engine's state to resume from. */
  state: z.unknown(),
});

export type WaitingTurnRecord = z.infer<typeof RecordSchema>;

/** A record kept under an id that this version cannot read: why, and what can still be told of it. */
export interface UnreadableWaitingTurn {
  id: string;
  why: Unreadable;
  /** Where its turn posts and whose guild it is, when that much can be read: where its end is told. */
  channelId?: string;
  guildId?: string | null;
  /** Its own deadline, when it reads (a turn resuming has a later one than the sweep's index says). */
  expiresAt?: number;
  /** The messages that ask about its calls, as far as they can be read (their buttons come off). */
  messageIds: string[];
}

/** What is kept under an id: a record, or one that cannot be read. */
export type WaitingTurnRead = { record: WaitingTurnRecord } | { unreadable: UnreadableWaitingTurn };

/** What the sweep reads of each waiting turn. */
export interface WaitingTurnEntry {
  id: string;
  guildId: string | null;
  expiresAt: number;
}

export interface WaitingTurnStore {
  /** Keep a new waiting turn. */
  save(record: WaitingTurnRecord): Promise<void>;
  /** The record kept under `id`; undefined when none is, or it cannot be read (see `read`). */
  get(id: string): Promise<WaitingTurnRecord | undefined>;
  /** What is kept under `id`, readable or not; undefined when nothing is. */
  read(id: string): Promise<WaitingTurnRead | undefined>;
  /**
   * Change a record atomically: `change` sees the record as it is now and returns the new one, or
   * undefined to leave it. Retried when another writer got there first, so `change` must be pure.
   * `changed` says whether this call's write landed; `record` is the record after (undefined: gone).
   */
  update(id: string, change: (record: WaitingTurnRecord) => WaitingTurnRecord | undefined): Promise<{ record?: WaitingTurnRecord; changed: boolean }>;
  remove(id: string): Promise<void>;
  /** Every turn kept now (the sweep ends those past their time). */
  list(): Promise<WaitingTurnEntry[]>;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const TOMBSTONE = '{"gone":true}';
/** Concurrent writers on one record are a handful of button presses; past this many lost races something is wrong. */
const MAX_ATTEMPTS = 20;

export function createWaitingTurnStore(backend: Backend, namespace: string): WaitingTurnStore {
  const keyOf = (id: string) => {
    if (!ID_PATTERN.test(id)) throw new StorageError(`Invalid waiting turn id "${id}".`);
    return `${namespace}:waiting:${id}`;
  };
  const index = `${namespace}:waiting-index`;
  const call = <T>(action: string, op: () => Promise<T>) => guarded(backend.kind, backend.where, action, op);

  const readRaw = async (id: string): Promise<{ entry: LogEntry; read: WaitingTurnRead } | undefined> => {
    const [entry] = await call('waiting turn read', () => backend.read(keyOf(id)));
    return entry ? { entry, read: parse(id, entry.raw) } : undefined;
  };
  const readOne = async (id: string): Promise<{ entry: LogEntry; record: WaitingTurnRecord } | undefined> => {
    const found = await readRaw(id);
    return found && 'record' in found.read ? { entry: found.entry, record: found.read.record } : undefined;
  };

  return {
    async save(record) {
      const checked = RecordSchema.parse(record);
      await call('waiting turn save', () => backend.append(keyOf(checked.id), JSON.stringify(checked)));
      const listed: WaitingTurnEntry = { id: checked.id, guildId: checked.guildId, expiresAt: checked.expiresAt };
      await call('waiting turn index', () => backend.append(index, JSON.stringify(listed)));
    },

    get: async (id) => (await readOne(id))?.record,

    read: async (id) => (await readRaw(id))?.read,

    async update(id, change) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const found = await readOne(id);
        if (!found) return { changed: false };
        const next = change(found.record);
        if (!next) return { record: found.record, changed: false };
        const raw = JSON.stringify(RecordSchema.parse(next));
        if (await call('waiting turn update', () => backend.replace(keyOf(id), found.entry, raw))) return { record: next, changed: true };
      }
      throw new StorageError(`Storage waiting turn update failed on ${backend.kind} (${backend.where}): the record kept changing under ${MAX_ATTEMPTS} attempts.`);
    },

    async remove(id) {
      await call('waiting turn remove', () => backend.remove(keyOf(id)));
      // The index is a log: the entry becomes a tombstone, and the tombstones at its head are trimmed.
      const entries = await call('waiting turn index read', () => backend.read(index));
      const mine = entries.find((e) => listedId(e.raw) === id);
      if (mine) await call('waiting turn index update', () => backend.replace(index, mine, TOMBSTONE));
      const after = await call('waiting turn index read', () => backend.read(index));
      let head: LogEntry | undefined;
      for (const e of after) {
        if (e.raw !== TOMBSTONE) break;
        head = e;
      }
      if (head) await call('waiting turn index trim', () => backend.remove(index, head));
    },

    async list() {
      const entries = await call('waiting turn index read', () => backend.read(index));
      const seen = new Map<string, WaitingTurnEntry>();
      for (const e of entries) {
        const listed = parseListed(e.raw);
        if (listed) seen.set(listed.id, listed);
      }
      return [...seen.values()];
    },
  };
}

function parse(id: string, raw: string): WaitingTurnRead {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { unreadable: { id, why: { kind: 'damaged', detail: 'not JSON' }, messageIds: [] } };
  }
  const read = readSaved(RecordSchema, RECORD_VERSION, value);
  if (read.ok) return { record: read.value };
  // What can still be told of it, each field on its own: where it posts, and its requests' messages.
  const where = Located.safeParse(value);
  const { channelId, guildId, expiresAt, calls } = where.success ? where.data : { channelId: undefined, guildId: undefined, expiresAt: undefined, calls: [] };
  const messageIds = calls.flatMap((c) => (c.messageId ? [c.messageId] : []));
  return {
    unreadable: { id, why: read.why, ...(channelId ? { channelId } : {}), ...(guildId !== undefined ? { guildId } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}), messageIds },
  };
}

/** A record's place, read field by field: whatever of it is broken reads as missing. */
const Located = z.object({
  channelId: z.string().optional().catch(undefined),
  guildId: z.string().nullable().optional().catch(undefined),
  expiresAt: z.number().optional().catch(undefined),
  calls: z.array(z.object({ messageId: z.string().optional().catch(undefined) }).catch({})).catch([]),
});

const Listed = z.object({ id: z.string(), guildId: z.string().nullable(), expiresAt: z.number() });

function parseListed(raw: string): WaitingTurnEntry | undefined {
  try {
    const result = Listed.safeParse(JSON.parse(raw));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

function listedId(raw: string): string | undefined {
  return parseListed(raw)?.id;
}
