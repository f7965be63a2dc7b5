/**
 * Data read back from storage that this code wrote earlier, maybe in another version (a rolling deploy,
 * a downgrade) or damaged on the way: its version is checked first, then its whole shape with zod, so a
 * caller gets either data it can trust or the reason it cannot, never a cast that fails later.
 */
import { z } from 'zod';

/** Why saved data cannot be used: another version wrote it (its `v`), or it is damaged (what is wrong). */
export type Unreadable = { kind: 'version'; v: unknown } | { kind: 'damaged'; detail: string };

export type Read<T> = { ok: true; value: T } | { ok: false; why: Unreadable };

/** `value` as version `version` of `schema` (which checks `v` too): the data, or why not. Never throws. */
export function readSaved<T>(schema: z.ZodType<T>, version: number, value: unknown): Read<T> {
  const v = typeof value === 'object' && value !== null ? (value as { v?: unknown }).v : undefined;
  if (v !== version) return { ok: false, why: v === undefined ? { kind: 'damaged', detail: 'no version' } : { kind: 'version', v } };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, why: { kind: 'damaged', detail: z.prettifyError(parsed.error).split('\n').slice(0, 2).join(' ') } };
}
