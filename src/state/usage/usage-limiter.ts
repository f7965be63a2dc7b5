/**
 * The usage limiter: admission before any model call, accounting after each, and the figures `/usage`
 * shows. Admission checks, in order: the server's and the member's tokens today (reads), a concurrency
 * lease (atomic: never more than the limit held), and the hourly run window (atomic: never more than
 * the limit admitted). Only the last two reserve anything; if the window refuses, the lease is given
 * back. So a race can at worst refuse a request that would have fit an instant later; it can never
 * admit one too many. Tokens cannot be reserved (a run's size is unknown), so a run may cross a daily
 * cap; the ticket tells the engine how much is left after every call so it can stop.
 */
import { randomUUID } from 'node:crypto';
import type { Backend } from '../backends/backend.js';
import { guarded } from '../backends/backend.js';
import { nextUtcMidnight, utcDay, utcDayBefore, type CounterStore } from './counter-store.js';
import { memoryCounters } from './memory-counters.js';
import { openRunWindow, type RunWindow, type WindowStore } from './run-window.js';
import { takeDailyUse, type DailyTake } from './daily-allowance.js';
import { createTicket, type TicketDeps } from './ticket.js';
import type { Admission, EffectiveLimits, GuildUsageReport, MemberUsageReport, Refusal, UsageSubject } from './types.js';
import type { PriceTable } from './model-prices.js';

/** What the limiter is built from. */
export interface UsageLimiterOptions {
  backend: Backend;
  /** Key prefix, as for the other stores. */
  namespace: string;
  now: () => Date;
  prices: PriceTable;
  /** How long a concurrency slot survives a process that never releases it: at least the run timeout. */
  leaseMs: number;
  /** Days of counters kept (default 40). */
  retentionDays?: number;
  /** The run window's length; an hour except in tests. */
  windowSeconds?: number;
}

/** Admission, accounting and reports. Every method may throw StorageError. */
export interface UsageLimiter {
  /** Decide, before any model call, whether `subject` may start a run under `limits`. */
  admit(subject: UsageSubject, limits: EffectiveLimits): Promise<Admission>;
  /** A member's usage today, what is left, and their runs this hour and in flight. */
  memberUsage(subject: Omit<UsageSubject, 'channelId'>, limits: EffectiveLimits): Promise<MemberUsageReport>;
  /** A server's totals today with its top members and channels (pass `null` for all DMs). */
  guildUsage(guildId: string | null, guildDailyTokens: number, top?: number): Promise<GuildUsageReport>;
  /**
   * Take one of today's `max` uses of `name` (a paid tool such as `web_search`) in a server (`null`:
   * all DMs together); exact across processes. `max` 0: no cap.
   */
  takeDaily(name: string, guildId: string | null, max: number): Promise<DailyTake>;
  /** Close the limiter's own connections (the backend's stay open). */
  close(): Promise<void>;
}

/** Open the limiter over an open backend, creating its tables if needed. */
export async function createUsageLimiter(options: UsageLimiterOptions): Promise<UsageLimiter> {
  const { backend, now } = options;
  const { counters, window, close } = await openStores(options);
  const retention = options.retentionDays ?? 40;
  let prunedFor = '';
  const deps: TicketDeps = {
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
    async admit(subject, limits) {
      const at = now();
      const scope = scopeOf(subject.guildId);
      const where = subject.guildId === null ? 'dm' : 'server';
      const refuse = (r: Omit<Refusal, 'where'>): Admission => ({ ok: false, ...r, where });
      const dayEnd = nextUtcMidnight(at);

      const { member, guild } = await counters.totals(utcDay(at), scope, subject.userId);
      if (limits.guildDailyTokens > 0 && guild.totalTokens >= limits.guildDailyTokens) {
        return refuse({ limit: 'guildDailyTokens', current: guild.totalTokens, max: limits.guildDailyTokens, resetsAt: dayEnd });
      }
      if (!limits.exempt && limits.userDailyTokens > 0 && member.totalTokens >= limits.userDailyTokens) {
        return refuse({ limit: 'userDailyTokens', current: member.totalTokens, max: limits.userDailyTokens, resetsAt: dayEnd });
      }

      const holder = `${scope}:${subject.userId}`;
      const leaseId = randomUUID();
      let leased = false;
      if (!limits.exempt && limits.concurrentRuns > 0) {
        const lease = await counters.acquire(holder, leaseId, limits.concurrentRuns, at.getTime(), at.getTime() + options.leaseMs);
        if (!lease.ok) return refuse({ limit: 'concurrentRuns', current: lease.held, max: limits.concurrentRuns, resetsAt: null });
        leased = true;
      }
      if (!limits.exempt && limits.runsPerHour > 0) {
        let hour;
        try {
          hour = await guarded(backend.kind, backend.where, 'usage run window', () => window.hit(holder));
        } catch (error) {
          if (leased) await counters.release(holder, leaseId).catch(() => undefined);
          throw error;
        }
        if (hour.count > limits.runsPerHour) {
          if (leased) await counters.release(holder, leaseId);
          // Refused attempts count in the window too; what the member has had is at most the limit.
          return refuse({ limit: 'runsPerHour', current: Math.min(hour.count - 1, limits.runsPerHour), max: limits.runsPerHour, resetsAt: hour.resetsAt });
        }
      }
      return { ok: true, ticket: createTicket(deps, { id: leaseId, subject, limits, holder: leased ? holder : undefined, scope }) };
    },

    async memberUsage(subject, limits) {
      const at = now();
      const scope = scopeOf(subject.guildId);
      const holder = `${scope}:${subject.userId}`;
      const [{ member, guild }, hour, inFlight] = await Promise.all([
        counters.totals(utcDay(at), scope, subject.userId),
        guarded(backend.kind, backend.where, 'usage run window', () => window.peek(holder)),
        counters.held(holder, at.getTime()),
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

    // The stores' own calls are guarded already (a StorageError names the backend).
    takeDaily: (name, guildId, max) => takeDailyUse(counters, now(), name, guildId, max),

    close,
  };
}

/** All DMs share one scope, so the server cap also bounds what DMs together can spend. */
function scopeOf(guildId: string | null): string {
  return guildId === null ? 'dm' : `g${guildId}`;
}

/** The counter store and run window for the backend's kind. */
async function openStores(options: UsageLimiterOptions): Promise<{ counters: CounterStore; window: RunWindow; close(): Promise<void> }> {
  const { backend, namespace } = options;
  const native = backend.native;
  const windowOf = (store: WindowStore) => openRunWindow(store, namespace, options.windowSeconds);
  switch (native.kind) {
    case 'memory':
      return { counters: memoryCounters(), window: await windowOf({ kind: 'memory' }), close: async () => {} };
    case 'redis': {
      const { redisCounters } = await import('./redis-counters.js');
      return {
        counters: redisCounters(native.client, namespace, backend.where, native.commandMs),
        window: await windowOf({ kind: 'redis', client: native.client }),
        close: async () => {},
      };
    }
    case 'postgres': {
      const { postgresCounters } = await import('./postgres-counters.js');
      return {
        counters: await postgresCounters(native.pool, namespace, backend.where),
        window: await guarded('postgres', backend.where, 'usage setup', () => windowOf({ kind: 'postgres', pool: native.pool })),
        close: async () => {},
      };
    }
    case 'sqlite': {
      const { openSqliteConnection, sqliteCounters } = await import('./sqlite-counters.js');
      const conn = await guarded('sqlite', backend.where, 'usage connection', () => openSqliteConnection(native.file, native.busyMs));
      try {
        return {
          counters: await sqliteCounters(conn, namespace, backend.where),
          window: await guarded('sqlite', backend.where, 'usage setup', () => windowOf({ kind: 'sqlite', conn })),
          close: () => conn.close(),
        };
      } catch (error) {
        await conn.close().catch(() => undefined);
        throw error;
      }
    }
  }
}
