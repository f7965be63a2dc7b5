/**
 * The usage family: what each backend folder implements for the usage limiter (src/state/usage/): run
 * claims and daily usage counters per member, channel and server, and the hourly run window. A claim is an admitted run's hold on the limits: its concurrency lease (a slot
 * that expires, so a vanished process cannot hold one for long) and the tokens set aside for it, which
 * what it really uses settles. Both must be exact when several processes use them at once; each
 * backend says how (a Redis script or MULTI, a PostgreSQL transaction with an advisory lock or a single
 * upsert, a SQLite IMMEDIATE transaction).
 */
import type { RunWindow } from './run-window.js';

/** Totals for one member, channel or server on one UTC day. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Estimated cost in billionths of a US dollar (see `formatUsd`). */
  costNanoUsd: number;
  /** Runs that made at least one model call. */
  runs: number;
}

/** Totals with nothing counted. */
export function emptyTotals(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, costNanoUsd: 0, runs: 0 };
}

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

/** An admitted run's claim, as stored. */
export interface ClaimSpec {
  id: string;
  scope: string;
  userId: string;
  /** Counts against the member's runs at once (not for an exempt member, nor when there is no such limit). */
  leased: boolean;
  /** Tokens to set aside: at most what the caps leave unreserved. */
  estimate: number;
  /** The process that holds it (an id made at its start), and the place that process runs in (host and journal). */
  owner: string;
  slot: string;
}

/** The limits a claim is checked against, on `day` at `nowMs`. 0 means none. */
export interface ClaimRules {
  day: string;
  nowMs: number;
  expiresAtMs: number;
  maxConcurrent: number;
  memberCap: number;
  guildCap: number;
}

/** A claim taken (with the runs the member has in flight, it included, and the tokens set aside), or which limit refused it. */
export type ClaimResult =
  | { ok: true; held: number; reserved: number }
  | { ok: false; limit: 'concurrentRuns'; held: number }
  | { ok: false; limit: 'userDailyTokens' | 'guildDailyTokens'; used: number; reserved: number };

/**
 * What the budgets look like to one run before a model call, from one read: tokens used today, tokens
 * set aside by live claims (the member's, the server's, and the asking run's own), and the member's
 * runs in flight.
 */
export interface Committed {
  memberUsed: number;
  guildUsed: number;
  memberReserved: number;
  guildReserved: number;
  ownReserved: number;
  memberRuns: number;
}

/** Claims and counters over one backend, under one namespace. Every method may throw StorageError. */
export interface CounterStore {
  /**
   * Take a claim if the caps have tokens that are neither used nor set aside, and the member has fewer
   * than `maxConcurrent` leased claims. Expired claims are dropped first. Two callers can never both
   * take the last slot or the same tokens.
   */
  claim(spec: ClaimSpec, rules: ClaimRules): Promise<ClaimResult>;
  /** Drop a claim; nothing happens if it expired or was dropped already. */
  unclaim(scope: string, id: string): Promise<void>;
  /** Push the expiry of these live claims to `expiresAtMs` (the owning process's heartbeat). */
  renew(claims: ReadonlyArray<{ scope: string; id: string }>, expiresAtMs: number): Promise<void>;
  /** Drop every claim of `slot` not owned by `owner`: a restarted process's predecessor is dead. How many were dropped. */
  releaseSlot(slot: string, owner: string): Promise<number>;
  /** The budgets as run `claimId` of `userId` sees them (one read). */
  committed(day: string, scope: string, userId: string, claimId: string, nowMs: number): Promise<Committed>;
  /**
   * Add `delta` to the member, channel and server rows at once, and to what claim `claimId` has used
   * (which settles its reservation); the new member and server totals.
   */
  add(key: CounterKey, delta: UsageTotals, claimId?: string): Promise<{ member: UsageTotals; guild: UsageTotals }>;
  /** The member's (when `userId` is given) and the server's totals on `day`. */
  totals(day: string, scope: string, userId?: string): Promise<{ member: UsageTotals; guild: UsageTotals }>;
  /** The `limit` members or channels with the most tokens on `day`, most first. */
  top(day: string, scope: string, kind: RankedKind, limit: number): Promise<Array<{ id: string; totals: UsageTotals }>>;
  /** Forget counters of days before `day` (claims expire by themselves). */
  prune(beforeDay: string): Promise<void>;
}

/**
 * Whether a claim fits, from what is used and set aside: the first cap with no unreserved tokens left
 * (server first), or how many tokens to set aside. Every backend decides with this one function.
 */
export function claimVerdict(
  c: Pick<Committed, 'memberUsed' | 'guildUsed' | 'memberReserved' | 'guildReserved' | 'memberRuns'>,
  spec: Pick<ClaimSpec, 'leased' | 'estimate'>,
  rules: Pick<ClaimRules, 'maxConcurrent' | 'memberCap' | 'guildCap'>,
): ClaimResult {
  // `>=`: a cap spent exactly (or held exactly by running questions) has nothing left for another run.
  if (rules.guildCap > 0 && c.guildUsed + c.guildReserved >= rules.guildCap) return { ok: false, limit: 'guildDailyTokens', used: c.guildUsed, reserved: c.guildReserved };
  if (rules.memberCap > 0 && c.memberUsed + c.memberReserved >= rules.memberCap) return { ok: false, limit: 'userDailyTokens', used: c.memberUsed, reserved: c.memberReserved };
  if (spec.leased && rules.maxConcurrent > 0 && c.memberRuns >= rules.maxConcurrent) return { ok: false, limit: 'concurrentRuns', held: c.memberRuns };
  let reserved = Math.max(0, Math.floor(spec.estimate));
  if (rules.guildCap > 0) reserved = Math.min(reserved, rules.guildCap - c.guildUsed - c.guildReserved);
  if (rules.memberCap > 0) reserved = Math.min(reserved, rules.memberCap - c.memberUsed - c.memberReserved);
  return { ok: true, held: c.memberRuns + (spec.leased ? 1 : 0), reserved };
}

/** The counter columns, in the order the SQL stores use them. */
export const TOTAL_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'costNanoUsd', 'runs'] as const;

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

/** Where a backend opens the limiter's stores: beside its key-value backend, under the storage's namespace. */
export interface UsageStoreOptions {
  /** Key prefix, as for the other stores. */
  namespace: string;
  /** The run window's length; an hour except in tests. */
  windowSeconds?: number;
}

/** The limiter's stores on one backend, each on the key-value backend's own client (SQLite: a connection of its own). */
export interface UsageStores {
  counters: CounterStore;
  window: RunWindow;
  /** Close what the stores opened of their own (the key-value backend stays open). */
  close(): Promise<void>;
}
