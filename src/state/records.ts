/**
 * The stored record format of a conversation log entry, and how a raw entry is read back: parsed,
 * migrated from an older version, or classified as corrupt or too new. Decoding never throws, so one
 * bad entry cannot take a whole thread down with it.
 */
import { z } from 'zod';
import { ContentPartSchema, UsageSchema, chatMessageSchema } from '../agent/message-schema.js';
import type { Usage } from '../agent/types.js';
import type { StoredMessage } from './types.js';

/** The version `append` writes. Bump it, and add a migration from the previous one, when the shape changes. */
export const RECORD_VERSION = 2;

/** Upgrades a record of version `n` (the key) to version `n + 1`. Throwing marks the record corrupt. */
export type Migrations = Readonly<Record<number, (record: Record<string, unknown>) => Record<string, unknown>>>;

/**
 * The built-in upgrades. Version 2 lets a user message's content be parts (text and images) as well as
 * a string; every version 1 record is already a valid version 2 record. The version still moved, so
 * that a process of the old version (a rolling deploy) skips a batch with parts as "newer" and leaves
 * it alone, instead of setting it aside as corrupt.
 */
export const MIGRATIONS: Migrations = {
  1: (record) => record,
};

const MetaShape = {
  author: z.object({ id: z.string(), name: z.string() }).optional(),
  at: z.number(),
  messageId: z.string().optional(),
};

/** A stored message: the OpenAI wire shape of each role (the engine's schema) plus author and time. */
export const StoredMessageSchema = chatMessageSchema(MetaShape, z.array(ContentPartSchema).min(1));

const BatchSchema = z.object({
  v: z.literal(RECORD_VERSION),
  at: z.number(),
  messages: z.array(StoredMessageSchema).min(1),
  usage: UsageSchema.optional(),
});

/** Left in place of an entry that was copied to quarantine, so it is reported once, not on every load. */
const TombstoneSchema = z.object({ v: z.number(), tombstone: z.literal(true), quarantineKey: z.string() });

/** One append: the messages of one batch, when, and what the model run cost. */
export interface BatchRecord {
  v: number;
  at: number;
  messages: StoredMessage[];
  usage?: Usage;
}

/** What one raw log entry turned out to be. */
export type Decoded =
  | { kind: 'batch'; batch: BatchRecord; migratedFrom?: number }
  | { kind: 'tombstone' }
  | { kind: 'newer'; version: number }
  | { kind: 'corrupt'; reason: string };

/** Serialize a batch for the log. */
export function encodeBatch(batch: BatchRecord): string {
  return JSON.stringify(batch);
}

/** Serialize the marker left where a corrupt entry was. */
export function encodeTombstone(quarantineKey: string): string {
  return JSON.stringify({ v: RECORD_VERSION, tombstone: true, quarantineKey });
}

/** Read one raw log entry. `migrations` add to (or replace steps of) the built-in table. */
export function decodeEntry(raw: string, extraMigrations: Migrations = {}): Decoded {
  const migrations = { ...MIGRATIONS, ...extraMigrations };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { kind: 'corrupt', reason: `not JSON (${(error as Error).message})` };
  }
  if (!isRecord(value)) return { kind: 'corrupt', reason: 'not a JSON object' };
  if (TombstoneSchema.safeParse(value).success) return { kind: 'tombstone' };
  const version = value.v;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    return { kind: 'corrupt', reason: 'no record version' };
  }
  // A newer process (a rolling deploy) may write a format this one does not know: leave it alone.
  if (version > RECORD_VERSION) return { kind: 'newer', version };
  const migrated = migrate(value, version, migrations);
  if ('reason' in migrated) return { kind: 'corrupt', reason: migrated.reason };
  const parsed = BatchSchema.safeParse(migrated.record);
  if (!parsed.success) {
    return { kind: 'corrupt', reason: `unexpected shape: ${z.prettifyError(parsed.error).split('\n')[0] ?? ''}` };
  }
  const batch = parsed.data as BatchRecord;
  return version < RECORD_VERSION ? { kind: 'batch', batch, migratedFrom: version } : { kind: 'batch', batch };
}

function migrate(
  record: Record<string, unknown>,
  from: number,
  migrations: Migrations,
): { record: Record<string, unknown> } | { reason: string } {
  let current = record;
  for (let v = from; v < RECORD_VERSION; v++) {
    const step = migrations[v];
    if (!step) return { reason: `version ${v} has no migration to ${v + 1}` };
    try {
      current = { ...step(current), v: v + 1 };
    } catch (error) {
      return { reason: `migration from version ${v} failed: ${(error as Error).message}` };
    }
  }
  return { record: current };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
