/**
 * What each backend implements for the usage limiter: concurrency leases (a counting semaphore whose
 * slots expire, so a crashed process cannot hold one forever) and daily usage counters per member,
 * channel and server. Both must be exact when several processes use them at once; each backend says
 * how (a Redis script or MULTI, a PostgreSQL transaction with an advisory lock or a single upsert, a
 * SQLite IMMEDIATE transaction).
 */
import type { UsageTotals } from './types.js';

/** Whether a lease was taken, and how many unexpired leases the holder has now (including it). */
export type LeaseResult = { ok: true; held: number } | { ok: false; held: number };

/** Which rows a record adds to: the member's, the channel's and the server's, on one UTC day. */
export interface CounterKey {
  day: string;
  /** The guild id, or `dm` for all direct messages together. */
  scope: string;
  userId: string;
  channelId: string;
}

/** Rows a ranking can list. */
export type RankedKind = 'member' | 'channel';

/** Leases and counters over one backend, under one namespace. Every method may throw StorageError. */
export interface CounterStore {
  /**
   * Take lease `leaseId` for `holder` (until `expiresAtMs`) if fewer than `max` of its leases are
   * unexpired at `nowMs`. Two callers can never both take the last slot.
   */
  acquire(holder: string, leaseId: string, max: number, nowMs: number, expiresAtMs: number): Promise<LeaseResult>;
  /** Drop a lease; nothing happens if it expired or was dropped already. */
  release(holder: string, leaseId: string): Promise<void>;
  /** Unexpired leases of `holder` at `nowMs`. */
  held(holder: string, nowMs: number): Promise<number>;
  /** Add `delta` to the member, channel and server rows at once; the new member and server totals. */
  add(key: CounterKey, delta: UsageTotals): Promise<{ member: UsageTotals; guild: UsageTotals }>;
  /** The member's (when `userId` is given) and the server's totals on `day`. */
  totals(day: string, scope: string, userId?: string): Promise<{ member: UsageTotals; guild: UsageTotals }>;
  /** The `limit` members or channels with the most tokens on `day`, most first. */
  top(day: string, scope: string, kind: RankedKind, limit: number): Promise<Array<{ id: string; totals: UsageTotals }>>;
  /** Forget counters of days before `day` (leases expire by themselves). */
  prune(beforeDay: string): Promise<void>;
}

/** The counter columns, in the order the SQL stores use them. */
export const TOTAL_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'costNanoUsd', 'runs'] as const;

/** The UTC date of `at` as `YYYY-MM-DD`: the key of a daily counter. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC midnight after `at`, when daily counters start again. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The UTC date `days` days before `at`. */
export function utcDayBefore(at: Date, days: number): string {
  return utcDay(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - days)));
}

/** Totals from a row of numbers or numeric strings (drivers return BIGINT as a string); missing is 0. */
export function totalsFrom(row: Record<string, unknown> | undefined | null, names: Record<(typeof TOTAL_FIELDS)[number], string>): UsageTotals {
  const read = (name: string) => {
    const value = Number(row?.[name] ?? 0);
    return Number.isFinite(value) ? value : 0;
  };
  return {
    inputTokens: read(names.inputTokens),
    outputTokens: read(names.outputTokens),
    totalTokens: read(names.totalTokens),
    costNanoUsd: read(names.costNanoUsd),
    runs: read(names.runs),
  };
}
