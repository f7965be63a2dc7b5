/**
 * Thread memory over a backend log: each append is one log entry (a batch of messages), a load reads
 * the entries back in order. Bad entries are copied to a quarantine key, replaced by a marker and
 * reported; entries from a newer format are skipped untouched. Nothing here rewrites history.
 */
import { addUsage, emptyUsage } from '../agent/usage.js';
import type { Usage } from '../agent/types.js';
import { StorageError } from '../errors.js';
import type { LogEntry } from '../storage/key-value.js';
import type { Backend } from '../storage/registry.js';
import { KeyedSerializer } from '../storage/keyed-serializer.js';
import { RECORD_VERSION, StoredMessageSchema, decodeEntry, encodeBatch, encodeTombstone, type Migrations } from './records.js';
import type { Conversation, ConversationStore, NewMessage, StorageLogger, StoredMessage } from './types.js';

/** What the conversation store is built from. */
export interface ConversationStoreOptions {
  backend: Backend;
  /** Key prefix, e.g. "threadwise". */
  namespace: string;
  /** Forget a conversation idle for longer than this. */
  ttlMs?: number;
  now: () => Date;
  logger: StorageLogger;
  migrations?: Migrations;
}

/** What a person's message says once its author deleted it in Discord. */
export const TAKEN_BACK = '[This message was deleted by its author.]';

/** Thread ids become part of keys; Discord's are digits, and nothing may contain the separator. */
const ID_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

/** Check an id before it becomes part of a storage key. */
export function checkId(kind: string, id: string): string {
  if (!ID_PATTERN.test(id)) throw new StorageError(`Invalid ${kind} id "${id}": use letters, digits, "_", "." or "-".`);
  return id;
}

/** Build the conversation store for a backend. */
export function createConversationStore(options: ConversationStoreOptions): ConversationStore {
  const { backend, namespace, ttlMs, now, logger, migrations } = options;
  const serial = new KeyedSerializer();
  const logKey = (threadId: string) => `${namespace}:conv:${checkId('thread', threadId)}`;
  const starterKey = (threadId: string) => `${namespace}:starter:${checkId('thread', threadId)}`;

  async function quarantine(threadId: string, entry: LogEntry, reason: string): Promise<void> {
    const key = `${namespace}:quarantine:conv:${threadId}:${now().getTime()}:${entry.ref.split(':').pop()}`;
    try {
      await backend.keyv.set(key, { threadId, reason, raw: entry.raw, at: now().getTime() });
      await backend.replace(logKey(threadId), entry, encodeTombstone(key));
      logger({
        level: 'warn',
        code: 'corrupt-record',
        threadId,
        quarantineKey: key,
        message: `A stored message batch of thread ${threadId} could not be read (${reason}); it was set aside under ${key} and left out of the conversation.`,
      });
    } catch (error) {
      // The entry stays in the log and is reported again next time; the readable part still loads.
      logger({
        level: 'error',
        code: 'corrupt-record',
        threadId,
        message: `A stored message batch of thread ${threadId} could not be read (${reason}) and could not be set aside: ${(error as Error).message}`,
      });
    }
  }

  async function load(threadId: string): Promise<Conversation> {
    const key = logKey(threadId);
    const entries = await backend.read(key);
    const conversation: Conversation = { threadId, messages: [], batches: [], usage: emptyUsage(), version: RECORD_VERSION };
    const migrated = { batches: 0, from: RECORD_VERSION };
    for (const entry of entries) {
      const decoded = decodeEntry(entry.raw, migrations);
      if (decoded.kind === 'tombstone') continue;
      if (decoded.kind === 'corrupt') {
        await quarantine(threadId, entry, decoded.reason);
        continue;
      }
      if (decoded.kind === 'newer') {
        logger({
          level: 'warn',
          code: 'newer-record',
          threadId,
          message: `Thread ${threadId} has a batch in record version ${decoded.version}, newer than this version (${RECORD_VERSION}); it was skipped and left as is.`,
        });
        continue;
      }
      const { batch } = decoded;
      if (decoded.migratedFrom !== undefined) {
        migrated.batches++;
        migrated.from = Math.min(migrated.from, decoded.migratedFrom);
      }
      conversation.batches!.push({ at: batch.at, messages: batch.messages.length, ...(batch.usage ? { usage: batch.usage } : {}) });
      conversation.messages.push(...batch.messages);
      conversation.createdAt ??= batch.at;
      conversation.updatedAt = batch.at;
      if (batch.usage) addUsage(conversation.usage, batch.usage);
    }
    if (migrated.batches > 0) {
      // Once per load, not per batch: an old thread would otherwise log a line for every exchange.
      logger({ level: 'info', code: 'migrated-record', threadId, message: `Read ${migrated.batches} batch${migrated.batches === 1 ? '' : 'es'} of thread ${threadId} in an older format (from version ${migrated.from}).` });
    }
    const last = entries.at(-1);
    if (ttlMs && last && conversation.updatedAt !== undefined && now().getTime() - conversation.updatedAt > ttlMs) {
      // Only the entries read are removed, so a message another process appends meanwhile survives.
      await backend.remove(key, last);
      logger({ level: 'info', code: 'conversation-expired', threadId, message: `Thread ${threadId} was idle longer than the conversation TTL; its history was forgotten.` });
      return { threadId, messages: [], batches: [], usage: emptyUsage(), version: RECORD_VERSION };
    }
    return conversation;
  }

  return {
    // async, so a bad argument is a rejected promise like every other failure, never a synchronous throw.
    load: async (threadId) => serial.run(threadId, () => load(threadId)),
    async append(threadId, messages, usage) {
      const key = logKey(threadId);
      if (messages.length === 0) return;
      const at = now().getTime();
      const stored = messages.map((m) => validMessage({ ...m, at: m.at ?? at }));
      const raw = encodeBatch({ v: RECORD_VERSION, at, messages: stored, ...(usage ? { usage: { ...usage } } : {}) });
      return serial.run(threadId, () => backend.append(key, raw, ttlMs));
    },
    async reset(threadId) {
      const key = logKey(threadId);
      return serial.run(threadId, () => backend.remove(key));
    },
    async takeBack(threadId, messageId) {
      const key = logKey(threadId);
      return serial.run(threadId, async () => {
        let taken = 0;
        for (const entry of await backend.read(key)) {
          const decoded = decodeEntry(entry.raw, migrations);
          if (decoded.kind !== 'batch' || !decoded.batch.messages.some((m) => m.messageId === messageId)) continue;
          const messages = decoded.batch.messages.map((m) => (m.messageId === messageId && m.role === 'user' ? { ...m, content: TAKEN_BACK } : m));
          taken += messages.filter((m, i) => m !== decoded.batch.messages[i]).length;
          // Compare-and-swap on the entry: an entry another process changed meanwhile is read again next time.
          await backend.replace(key, entry, encodeBatch({ ...decoded.batch, v: RECORD_VERSION, messages }));
        }
        return taken;
      });
    },
    async starter(threadId) {
      const value: unknown = await backend.keyv.get(starterKey(threadId));
      return typeof value === 'string' ? value : undefined;
    },
    async setStarter(threadId, userId) {
      const key = starterKey(threadId);
      // Serialised per thread in this process; a thread is opened by one process, so that is enough.
      await serial.run(`starter:${threadId}`, async () => {
        if ((await backend.keyv.get(key)) === undefined) await backend.keyv.set(key, userId);
      });
    },
  };
}

function validMessage(message: NewMessage): StoredMessage {
  const parsed = StoredMessageSchema.safeParse(message);
  if (!parsed.success) {
    throw new StorageError(`Refusing to store a malformed ${message.role ?? ''} message: ${parsed.error.issues[0]?.message ?? 'invalid'}. Nothing was written.`);
  }
  return parsed.data as StoredMessage;
}

