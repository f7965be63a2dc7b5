/**
 * The run journal's storage: an append-only log per bot process (or shard) of the runs it has in
 * flight — when each started, where its messages are, when it ended — so that a process restarted
 * after a crash can find the runs that died with its predecessor. Entries are small JSON records; an
 * unreadable one is skipped (a crash can cut the last write short), never fatal.
 */
import { z } from 'zod';
import type { LogEntry } from '../storage/key-value.js';
import type { Backend } from '../storage/registry.js';
import { guarded } from '../storage/storage-failure.js';

const Reply = z.object({ channelId: z.string(), messageId: z.string() });

const EntrySchema = z.discriminatedUnion('kind', [
  z.object({
    v: z.literal(1),
    kind: z.literal('start'),
    boot: z.string(),
    runId: z.string(),
    threadId: z.string(),
    guildId: z.string().optional(),
    reply: Reply.optional(),
    at: z.number(),
  }),
  z.object({ v: z.literal(1), kind: z.literal('message'), boot: z.string(), runId: z.string(), channelId: z.string(), messageId: z.string() }),
  z.object({ v: z.literal(1), kind: z.literal('end'), boot: z.string(), runId: z.string() }),
]);

/** One journal entry. `boot` names the process lifetime that wrote it. */
export type JournalEntry = z.infer<typeof EntrySchema>;

/** What a read found: readable entries (with their place in the log), and how many were not. */
export interface JournalRead {
  entries: Array<{ entry: JournalEntry; at: LogEntry }>;
  unreadable: number;
}

export interface RunJournalStore {
  append(entry: JournalEntry): Promise<void>;
  read(): Promise<JournalRead>;
  /** Remove the entries up to and including `upTo` (all of them without it); later appends survive. */
  clear(upTo?: LogEntry): Promise<void>;
}

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** The journal named `name` (one per process or shard: `main`, `shard-3`) in a backend. */
export function createRunJournalStore(backend: Backend, namespace: string, name: string): RunJournalStore {
  if (!NAME_PATTERN.test(name)) throw new Error(`Invalid run journal name "${name}".`);
  const key = `${namespace}:journal:${name}`;
  const call = <T>(action: string, op: () => Promise<T>) => guarded(backend.kind, backend.where, action, op);
  return {
    append: (entry) => call('run journal append', () => backend.append(key, JSON.stringify(entry))),
    async read() {
      const raw = await call('run journal read', () => backend.read(key));
      const read: JournalRead = { entries: [], unreadable: 0 };
      for (const at of raw) {
        const parsed = parse(at.raw);
        if (parsed) read.entries.push({ entry: parsed, at });
        else read.unreadable++;
      }
      return read;
    },
    clear: (upTo) => call('run journal clear', () => backend.remove(key, upTo)),
  };
}

function parse(raw: string): JournalEntry | undefined {
  try {
    const result = EntrySchema.safeParse(JSON.parse(raw));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
