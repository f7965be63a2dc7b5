/**
 * The usage limiter: admission before any model call, a check before and a record after each call,
 * and the figures `/usage` shows. Admission takes a claim (atomic: the server's and the member's tokens
 * today less what running questions have set aside, then the member's runs at once; it sets aside an
 * estimate of one call, `reserveTokens`, so questions asked at the same moment cannot all count on the
 * same remainder), then counts the run in the hourly window (atomic); if the window refuses, the claim
 * is given back. So a race can at worst refuse a request that would have fit an instant later; it can
 * never admit one too many. Before each model call the ticket reads the shared budgets again and after
 * it records the tokens, so a cap is crossed by at most one call per run in flight.
 *
 * Claims carry the process that took them. A live process renews its claims every `heartbeatMs`; the
 * claims of a process that vanished expire `leaseMs` after its last heartbeat, and a process restarted
 * in the same place (`owner.slot`: host and journal) drops its predecessor's claims when it opens.
 */
import { randomUUID } from 'node:crypto';
import { guarded } from '../../storage/storage-failure.js';
import { openUsageStores } from '../../storage/open.js';
import type { Backend } from '../../storage/registry.js';
import type { UsageStoreOptions } from '../../storage/usage-store.js';
import { nextUtcMidnight, utcDay, utcDayBefore } from './days.js';
import { takeDailyUse, type DailyTake } from './daily-allowance.js';
import { guildHistory, type GuildHistory } from './guild-history.js';
import { createTicket, type TicketDeps } from './ticket.js';
import type { Admission, EffectiveLimits, GuildUsageReport, MemberUsageReport, Refusal, UsageSubject } from './types.js';
import type { PriceTable } from './model-prices.js';

/** What the limiter is built from: the storage's open backend and namespace, and the limiter's own settings. */
export interface UsageLimiterOptions extends UsageStoreOptions {
  backend: Backend;
  now: () => Date;
  prices: PriceTable;
  /**
   * How long a claim lasts without renewal: with `heartbeatMs`, how long a vanished process's claims
   * keep their slots (a few heartbeats); without, at least the longest run.
   */
  leaseMs: number;
  /** Renew this process's claims this often (none: claims last `leaseMs` from admission). */
  heartbeatMs?: number;
  /** Tokens set aside for each admitted run until it records real usage (default 0: none). */
  reserveTokens?: number;
  /** This process: an id made at its start, and where it runs (host and journal name) so its successor there can drop its claims. */
  owner?: { id: string; slot?: string };
  /** Days of counters kept (default 40). */
  retentionDays?: number;
}

/** Admission, accounting and reports. Every method may throw StorageError. */
export interface UsageLimiter {
  /**
   * Decide, before any model call, whether `subject` may start a run under `limits`. With `slot: 'later'`
   * the run's slot and token reservation are not taken now but by `ticket.hold()` when it starts: a
   * message that waits in a busy thread is not running, so it must hold neither.
   */
  admit(subject: UsageSubject, limits: EffectiveLimits, options?: AdmitOptions): Promise<Admission>;
  /** A member's usage today, what is left, and their runs this hour and in flight. */
  memberUsage(subject: Omit<UsageSubject, 'channelId'>, limits: EffectiveLimits): Promise<MemberUsageReport>;
  /** A server's totals today with its top members and channels (pass `null` for all DMs). */
  guildUsage(guildId: string | null, guildDailyTokens: number, top?: number): Promise<GuildUsageReport>;
  /** A server's usage on each of its last `days` UTC days (today included), with its `top` busiest members and channels over them (the web console). */
  guildHistory(guildId: string, days: number, top?: number): Promise<GuildHistory>;
  /**
   * Take one of today's `max` uses of `name` (a paid tool such as `web_search`) in a server (`null`:
   * all DMs together); exact across processes. `max` 0: no cap.
   */
  takeDaily(name: string, guildId: string | null, max: number): Promise<DailyTake>;
  /** Claims of a dead process in this limiter's slot that were dropped when it opened. */
  readonly releasedAtStart: number;
  /** Stop the heartbeat and close the limiter's own connections (the backend's stay open). */
  close(): Promise<void>;
}

/** How `admit` treats the run's slot and reservation: taken at once (default), or by `ticket.hold()` when the run starts. */
/** How often a process renews its runs' claims, and how long they last without renewal. */
export const CLAIM_TIMING = { heartbeatMs: 15_000, leaseMs: 60_000 } as const;

/**
 * Tokens a run sets aside at admission: one model call's worth, the largest its first call can be (the
 * history's budget and the reply's). `maxTokens` unset: the usual reply cap of 1,024.
 */
export function runReservation(historyTokenBudget: number, maxTokens?: number): number {
  return historyTokenBudget + (maxTokens ?? 1_024);
}

export interface AdmitOptions {
  slot?: 'now' | 'later';
  /**
   * Whether the request counts as a run of the member's hour (default true). A turn resumed after an
   * approval is the same run going on: it takes a slot and meets the caps, but is not counted again.
   */
  countRun?: boolean;
}

/** Open the limiter over an open backend, creating its tables if needed. */
export async function createUsageLimiter(options: UsageLimiterOptions): Promise<UsageLimiter> {
  const { backend, now } = options;
  const { counters, window, close } = await openUsageStores(backend, options);
  const retention = options.retentionDays ?? 40;
  let prunedFor = '';
  const owner = { id: options.owner?.id ?? randomUUID(), slot: options.owner?.slot ?? '' };
  // The claims this process holds now, renewed by the heartbeat (a ticket that lets go drops out).
  const live = new Map<string, string>();
  let releasedAtStart = 0;
  let closed = false;
  try {
    if (owner.slot) releasedAtStart = await counters.releaseSlot(owner.slot, owner.id);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  const heartbeat = options.heartbeatMs
    ? setInterval(() => {
        const claims = [...live].map(([id, scope]) => ({ id, scope }));
        // A failed renewal is retried on the next beat; claims outlive a few missed ones (leaseMs).
        void counters.renew(claims, now().getTime() + options.leaseMs).catch(() => undefined);
      }, options.heartbeatMs)
    : undefined;
  heartbeat?.unref();
  const deps: TicketDeps = {
    forget: (id) => live.delete(id),
    counters,
    now,
    prices: options.prices,
    prune: (day) => {
      // Once per process per day is plenty; a failure only delays the cleanup to the next record.
      if (prunedFor === day) return;
      prunedFor = day;
      void counters.prune(utcDayBefore(now(), retention)).catch(() => (prunedFor = ''));
    },
  };
  return {
    async admit(subject, limits, admitOptions = {}) {
      const scope = scopeOf(subject.guildId);
      const where = subject.guildId === null ? 'dm' : 'server';
      const refuse = (r: Omit<Refusal, 'where'>): Admission => ({ ok: false, ...r, where });

      const holder = `${scope}:${subject.userId}`;
      const leased = !limits.exempt && limits.concurrentRuns > 0;
      const memberCap = limits.exempt ? 0 : limits.userDailyTokens;
      // No limit needs a claim: nothing to hold, nothing to write.
      const claimed = leased || memberCap > 0 || limits.guildDailyTokens > 0;
      const later = admitOptions.slot === 'later';
      /** Take a claim: the caps checked atomically, and (when the run starts now) its slot and reservation. */
      const take = async (running: boolean): Promise<{ ok: true; id: string; reserved: number } | ({ ok: false } & Refusal)> => {
        const id = randomUUID();
        const from = now();
        const claim = await counters.claim(
          { id, scope, userId: subject.userId, leased: leased && running, estimate: running ? (options.reserveTokens ?? 0) : 0, owner: owner.id, slot: owner.slot },
          { day: utcDay(from), nowMs: from.getTime(), expiresAtMs: from.getTime() + options.leaseMs, maxConcurrent: leased && running ? limits.concurrentRuns : 0, memberCap, guildCap: limits.guildDailyTokens },
        );
        if (!claim.ok && claim.limit === 'concurrentRuns') return { ok: false, where, limit: 'concurrentRuns', current: claim.held, max: limits.concurrentRuns, resetsAt: null };
        if (!claim.ok) {
          const max = claim.limit === 'guildDailyTokens' ? limits.guildDailyTokens : limits.userDailyTokens;
          return { ok: false, where, limit: claim.limit, current: claim.used, max, resetsAt: nextUtcMidnight(from), ...(claim.reserved > 0 ? { reserved: claim.reserved } : {}) };
        }
        live.set(id, scope);
        return { ok: true, id, reserved: claim.reserved };
      };
      let claimId: string = randomUUID();
      let reserved = 0;
      if (claimed) {
        const claim = await take(!later);
        if (!claim.ok) return claim;
        claimId = claim.id;
        reserved = claim.reserved;
      }
      const giveBack = async () => {
        live.delete(claimId);
        if (claimed) await counters.unclaim(scope, claimId);
      };
      if (!limits.exempt && limits.runsPerHour > 0 && admitOptions.countRun !== false) {
        let hour;
        try {
          hour = await guarded(backend.kind, backend.where, 'usage run window', () => window.hit(holder));
        } catch (error) {
          // Closed, not open: a window that cannot be read refuses the run (the caller says storage failed).
          await giveBack().catch(() => undefined);
          throw error;
        }
        if (hour.count > limits.runsPerHour) {
          await giveBack();
          // Refused attempts count in the window too; what the member has had is at most the limit.
          return refuse({ limit: 'runsPerHour', current: Math.min(hour.count - 1, limits.runsPerHour), max: limits.runsPerHour, resetsAt: hour.resetsAt });
        }
      }
      // A waiting message's claim checked the caps only; the run takes its real one when it starts.
      const hold = later && claimed ? () => take(true) : undefined;
      return { ok: true, ticket: createTicket(deps, { id: claimId, subject, limits, scope, claimed, reserved, hold }) };
    },

    async memberUsage(subject, limits) {
      const at = now();
      const scope = scopeOf(subject.guildId);
      const holder = `${scope}:${subject.userId}`;
      const [{ member, guild }, hour, { memberRuns: inFlight }] = await Promise.all([
        counters.totals(utcDay(at), scope, subject.userId),
        guarded(backend.kind, backend.where, 'usage run window', () => window.peek(holder)),
        counters.committed(utcDay(at), scope, subject.userId, '', at.getTime()),
      ]);
      const left = (max: number, used: number) => (max > 0 ? Math.max(0, max - used) : Infinity);
      return {
        day: utcDay(at),
        today: member,
        runsThisHour: hour ? (limits.runsPerHour > 0 ? Math.min(hour.count, limits.runsPerHour) : hour.count) : 0,
        hourResetsAt: hour?.resetsAt ?? null,
        runsInFlight: inFlight,
        limits,
        memberTokensLeft: limits.exempt ? Infinity : left(limits.userDailyTokens, member.totalTokens),
        guildTokensLeft: left(limits.guildDailyTokens, guild.totalTokens),
        dayResetsAt: nextUtcMidnight(at),
        where: subject.guildId === null ? 'dm' : 'server',
      };
    },

    async guildUsage(guildId, guildDailyTokens, top = 10) {
      const at = now();
      const day = utcDay(at);
      const scope = scopeOf(guildId);
      const [{ guild }, members, channels] = await Promise.all([
        counters.totals(day, scope),
        counters.top(day, scope, 'member', top),
        counters.top(day, scope, 'channel', top),
      ]);
      return {
        day,
        today: guild,
        topMembers: members.map((m) => ({ userId: m.id, totals: m.totals })),
        topChannels: channels.map((c) => ({ channelId: c.id, totals: c.totals })),
        guildDailyTokens,
        dayResetsAt: nextUtcMidnight(at),
      };
    },

    guildHistory: (guildId, days, top = 10) => guildHistory(counters, scopeOf(guildId), now(), days, top),

    // The stores' own calls are guarded already (a StorageError names the backend).
    takeDaily: (name, guildId, max) => takeDailyUse(counters, now(), name, guildId, max),

    releasedAtStart,
    async close() {
      if (closed) return;
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      await close();
    },
  };
}

/** All DMs share one scope, so the server cap also bounds what DMs together can spend. */
function scopeOf(guildId: string | null): string {
  return guildId === null ? 'dm' : `g${guildId}`;
}
