/**
 * The vocabulary of usage limits and accounting: who a request is for, the limits that apply to it, what
 * admission answers, and what a ticket lets a run do. `src/policy/limits.ts` computes the limits;
 * `createUsageLimiter` enforces and counts them.
 */
import type { Usage } from '../../agent/types.js';
import type { UsageTotals } from '../../storage/usage-store.js';

export { emptyTotals, type UsageTotals } from '../../storage/usage-store.js';

/** The four limits. 0 in any of them means no limit. */
export interface UsageLimits {
  /** Runs a member may start per hour (a window that opens with their first run). */
  runsPerHour: number;
  /** Runs a member may have in flight at once. */
  concurrentRuns: number;
  /** Model tokens a member may use per UTC day. */
  userDailyTokens: number;
  /** Model tokens the whole server (or all DMs together) may use per UTC day. */
  guildDailyTokens: number;
}

/** The limits for one member in one place, after server overrides and exempt roles. */
export interface EffectiveLimits extends UsageLimits {
  /** The member has an exempt role: member limits are 0 (none); the server cap still applies. */
  exempt: boolean;
}

/** Which limit refused a request. */
export type LimitName = keyof UsageLimits;

/** Who a request is for. `guildId` null is a DM; all DMs share one "server" budget. */
export interface UsageSubject {
  guildId: string | null;
  channelId: string;
  userId: string;
}

/** Why a request was refused, with what a clear message needs. */
export interface Refusal {
  limit: LimitName;
  /** Usage counted against the limit so far (runs this hour, runs in flight, tokens today). */
  current: number;
  max: number;
  /** When the limit resets: end of the hourly window, next UTC midnight; null for runs in flight. */
  resetsAt: Date | null;
  /** Whether the subject was in a server or a DM, for the wording. */
  where: 'server' | 'dm';
  /** For a token cap: tokens that questions running now have set aside (not yet used). */
  reserved?: number;
}

/** What `admit` answers. */
export type Admission = ({ ok: true; ticket: UsageTicket }) | ({ ok: false } & Refusal);

/** What `ticket.record` reports after counting a model call. */
export interface RecordResult {
  member: UsageTotals;
  guild: UsageTotals;
  /** Tokens left before the first daily cap the run is under; Infinity when none applies. */
  remainingTokens: number;
  costNanoUsd: number;
}

/** An admitted run's handle on its limits. Every method may throw StorageError. */
export interface UsageTicket {
  /** A unique id (the run's claim: its concurrency lease and reserved tokens), for logs. */
  readonly id: string;
  readonly subject: UsageSubject;
  readonly limits: EffectiveLimits;
  /** Tokens set aside for the run at admission; what it uses settles them. */
  readonly reserved: number;
  /**
   * Count one model call's tokens and estimated cost for the member, the channel and the server, on
   * today's UTC date, as soon as the call returns. The first call of a run also counts the run.
   */
  record(usage: Usage, model: string): Promise<RecordResult>;
  /**
   * Before a model call (one shared read): undefined when both daily budgets have room, counting what
   * other runs hold; otherwise which cap is spent and when it resets.
   */
  check(): Promise<Refusal | undefined>;
  /** The smaller of the member's and the server's daily budget this run may still spend; Infinity when neither applies. */
  remainingTokens(): Promise<number>;
  /**
   * Take the run's slot and reservation now, for a ticket admitted with `slot: 'later'` (a no-op when it
   * has them, or needs none). Refused when the member has their limit of runs in flight, or a cap is spent.
   */
  hold(): Promise<{ ok: true } | ({ ok: false } & Refusal)>;
  /** Give the claim back (the slot and what is left of the reservation). Idempotent; a vanished process's claims expire. */
  release(): Promise<void>;
}

/** A member's usage for `/usage`. */
export interface MemberUsageReport {
  day: string;
  today: UsageTotals;
  runsThisHour: number;
  /** When the hourly window resets, or null when no window is open. */
  hourResetsAt: Date | null;
  runsInFlight: number;
  limits: EffectiveLimits;
  /** Tokens the member may still use today (Infinity: no member cap). */
  memberTokensLeft: number;
  /** Tokens the server may still use today (Infinity: no server cap). */
  guildTokensLeft: number;
  /** Next UTC midnight, when the daily budgets reset. */
  dayResetsAt: Date;
  where: 'server' | 'dm';
}

/** A server's usage today for moderators. */
export interface GuildUsageReport {
  day: string;
  today: UsageTotals;
  /** Members by tokens today, most first. */
  topMembers: Array<{ userId: string; totals: UsageTotals }>;
  /** Channels by tokens today, most first. */
  topChannels: Array<{ channelId: string; totals: UsageTotals }>;
  guildDailyTokens: number;
  dayResetsAt: Date;
}
