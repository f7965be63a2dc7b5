/**
 * What members asked the bot to remember, per member per server, in the shared storage. A member's
 * entries are one append-only log (the backend's atomic append, so two turns adding at once never lose
 * one); forgetting replaces an entry by a tombstone with the backend's compare-and-swap; clearing removes
 * the log up to the last entry read, so an entry added meanwhile survives.
 *
 * The cap is exact across processes without a lock: an entry counts only if fewer than `maxEntries`
 * live entries come before it in the log, which every reader decides the same way from the same log.
 * A writer reads back after appending and, if its entry landed past the cap, turns it into a tombstone
 * and says the memory is full; so two processes adding the 50th entry at once store exactly one.
 */
import { randomBytes } from 'node:crypto';
import { StorageError } from '../../errors.js';
import type { LogEntry } from '../../storage/key-value.js';
import type { Backend } from '../../storage/registry.js';
import { checkId } from '../conversation-store.js';
import { KeyedSerializer } from '../../storage/keyed-serializer.js';
import {
  oneLineEntry, decodeEntry, encodeEntry, encodeTombstone, MEMORY_LIMITS, sameWords,
  type EntryOrigin, type MemoryEntry, type MemoryLimits,
} from './entry-records.js';

/** What `add` did. */
export type AddOutcome =
  | { status: 'added'; entry: MemoryEntry; shortened: boolean }
  | { status: 'exists'; entry: MemoryEntry }
  | { status: 'full'; maxEntries: number }
  | { status: 'empty' };

/** One member's memory in one server. Every method throws StorageError when the backend fails. */
export interface MemberMemoryStore {
  readonly limits: MemoryLimits;
  /** The member's entries in this server, oldest first. */
  list(guildId: string, userId: string): Promise<MemoryEntry[]>;
  /** Store an entry (cleaned and capped); the same words again give the entry already there. */
  add(guildId: string, userId: string, text: string, how: EntryOrigin): Promise<AddOutcome>;
  /** Forget one entry; the entry forgotten, or undefined when there is none with that id. */
  forget(guildId: string, userId: string, id: string): Promise<MemoryEntry | undefined>;
  /** Forget every entry; how many there were. */
  clear(guildId: string, userId: string): Promise<number>;
  /**
   * Mark one entry (`id`) or all of them shared or not; how many changed. Without `id` it is also the
   * member's choice for the entries stored after it.
   */
  share(guildId: string, userId: string, shared: boolean, id?: string): Promise<number>;
  /** Whether the member's new entries start shared (their last `/memory share` for all entries). */
  sharesByDefault(guildId: string, userId: string): Promise<boolean>;
}

export interface MemberMemoryOptions {
  backend: Backend;
  namespace: string;
  now: () => Date;
  limits?: Partial<MemoryLimits>;
  /** New entry ids (tests pass a counter); default: 6 random base-36 characters. */
  newId?: () => string;
}

/** Compare-and-swap attempts before giving up on an entry another process keeps changing. */
const MAX_ATTEMPTS = 8;
/** Leading tombstones a log may keep before they are removed. */
const COMPACT_AFTER = 8;

interface Read {
  entries: LogEntry[];
  /** The live entries that count (the first `maxEntries`), in log order, with their log entries. */
  live: Array<{ log: LogEntry; entry: MemoryEntry }>;
  /** How many leading log entries are tombstones (or unreadable). */
  deadPrefix: number;
}

export function createMemberMemoryStore(options: MemberMemoryOptions): MemberMemoryStore {
  const { backend, namespace, now } = options;
  const limits: MemoryLimits = { ...MEMORY_LIMITS, ...options.limits };
  const newId = options.newId ?? (() => randomBytes(6).readUIntBE(0, 6).toString(36).slice(-6).padStart(6, '0'));
  const serial = new KeyedSerializer();
  const logKey = (guildId: string, userId: string) => `${namespace}:mem:${checkId('guild', guildId)}:${checkId('user', userId)}`;
  const prefsKey = (guildId: string, userId: string) => `${namespace}:memprefs:${checkId('guild', guildId)}:${checkId('user', userId)}`;

  async function read(log: string): Promise<Read> {
    const entries = await backend.read(log);
    const live: Read['live'] = [];
    let deadPrefix = 0;
    let prefix = true;
    for (const raw of entries) {
      const decoded = decodeEntry(raw.raw);
      if (decoded.kind !== 'entry') {
        if (prefix) deadPrefix++;
        continue;
      }
      prefix = false;
      if (live.length < limits.maxEntries) live.push({ log: raw, entry: decoded.entry });
    }
    return { entries, live, deadPrefix };
  }

  /** Change the live entries `pick` chooses with `change`, each by compare-and-swap, re-reading on a conflict. */
  async function rewrite(log: string, pick: (entry: MemoryEntry) => boolean, change: (entry: MemoryEntry) => string): Promise<MemoryEntry[]> {
    const done: MemoryEntry[] = [];
    const handled = new Set<string>();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { live } = await read(log);
      const todo = live.filter(({ entry }) => pick(entry) && !handled.has(entry.id));
      let conflict = false;
      for (const { log: raw, entry } of todo) {
        if (await backend.replace(log, raw, change(entry))) {
          done.push(entry);
          handled.add(entry.id);
        } else conflict = true;
      }
      if (!conflict) return done;
    }
    throw new StorageError(`Storage update failed on ${backend.kind} (${backend.where}): the memory entries kept changing under ${MAX_ATTEMPTS} attempts. Try again.`);
  }

  /** Drop tombstones at the start of the log (they never change back, so removing them is safe). */
  async function compact(log: string): Promise<void> {
    const { entries, deadPrefix } = await read(log);
    if (deadPrefix === 0) return;
    if (deadPrefix === entries.length) await backend.remove(log, entries.at(-1));
    else if (deadPrefix >= COMPACT_AFTER) await backend.remove(log, entries[deadPrefix - 1]);
  }

  return {
    limits,
    list: async (guildId, userId) => (await read(logKey(guildId, userId))).live.map((l) => l.entry),

    add(guildId, userId, text, how) {
      const log = logKey(guildId, userId);
      return serial.run(log, async () => {
        const clean = oneLineEntry(text, limits.maxChars);
        if (!clean.text) return { status: 'empty' } as const;
        const before = await read(log);
        const same = before.live.find(({ entry }) => sameWords(entry.text, clean.text));
        if (same) return { status: 'exists', entry: same.entry } as const;
        if (before.live.length >= limits.maxEntries) return { status: 'full', maxEntries: limits.maxEntries } as const;
        const taken = new Set(before.live.map(({ entry }) => entry.id));
        let id = newId();
        for (let i = 0; taken.has(id) && i < 10; i++) id = newId();
        const shared = (await backend.keyv.get(prefsKey(guildId, userId)))?.share === true;
        const entry: MemoryEntry = { id, text: clean.text, shared, at: now().getTime(), how };
        const raw = encodeEntry(entry);
        await backend.append(log, raw);
        // Read back: another process may have added at the same moment, and only the first entries count.
        const after = await read(log);
        if (after.live.some((l) => l.log.raw === raw)) return { status: 'added', entry, shortened: clean.shortened } as const;
        const mine = after.entries.find((e) => e.raw === raw);
        if (mine) await backend.replace(log, mine, encodeTombstone(id, now().getTime()));
        return { status: 'full', maxEntries: limits.maxEntries } as const;
      });
    },

    forget(guildId, userId, id) {
      const log = logKey(guildId, userId);
      return serial.run(log, async () => {
        const [gone] = await rewrite(log, (entry) => entry.id === id, (entry) => encodeTombstone(entry.id, now().getTime()));
        if (gone) await compact(log);
        return gone;
      });
    },

    clear(guildId, userId) {
      const log = logKey(guildId, userId);
      return serial.run(log, async () => {
        const { entries, live } = await read(log);
        if (entries.length > 0) await backend.remove(log, entries.at(-1));
        return live.length;
      });
    },

    share(guildId, userId, shared, id) {
      const log = logKey(guildId, userId);
      return serial.run(log, async () => {
        if (id === undefined) await backend.keyv.set(prefsKey(guildId, userId), { share: shared });
        const changed = await rewrite(log, (entry) => (id === undefined || entry.id === id) && entry.shared !== shared, (entry) => encodeEntry({ ...entry, shared }));
        return changed.length;
      });
    },

    sharesByDefault: async (guildId, userId) => (await backend.keyv.get(prefsKey(guildId, userId)))?.share === true,
  };
}
