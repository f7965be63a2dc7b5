/**
 * An admitted run's ticket: before each model call it reads what is left of the member's and the
 * server's daily budgets (one shared read: other runs and processes spend the same budgets), after
 * each call it counts the tokens for the member, the channel and the server (settling the tokens set
 * aside for the run), and at the end it gives the claim back.
 */
import type { Usage } from '../../agent/types.js';
import type { Committed, CounterStore } from '../../storage/usage-store.js';
import { nextUtcMidnight, utcDay } from './days.js';
import { costNanoUsd, type PriceTable } from './model-prices.js';
import type { EffectiveLimits, RecordResult, Refusal, UsageSubject, UsageTicket, UsageTotals } from './types.js';

/** What every ticket of one limiter shares. */
export interface TicketDeps {
  counters: CounterStore;
  now: () => Date;
  prices: PriceTable;
  /** Called with the day of each record, so old days get cleaned up now and then. */
  prune(day: string): void;
  /** Told when a ticket lets go of its claim, so the heartbeat stops renewing it. */
  forget(id: string): void;
}

/** One admitted run. `claimed` is false when no claim was stored (no limit needed one). */
export interface TicketSpec {
  id: string;
  subject: UsageSubject;
  limits: EffectiveLimits;
  scope: string;
  claimed: boolean;
  reserved: number;
  /** For a ticket admitted with its slot taken later: take the run's claim (slot and reservation) now. */
  hold?: () => Promise<{ ok: true; id: string; reserved: number } | ({ ok: false } & Refusal)>;
}

/** Tokens left under the caps that apply; Infinity when none does. */
export function tokensLeft(limits: EffectiveLimits, member: UsageTotals, guild: UsageTotals): number {
  let left = Infinity;
  if (limits.guildDailyTokens > 0) left = Math.min(left, limits.guildDailyTokens - guild.totalTokens);
  if (!limits.exempt && limits.userDailyTokens > 0) left = Math.min(left, limits.userDailyTokens - member.totalTokens);
  return Math.max(0, left);
}

/**
 * What one run may still spend under each cap: the cap less what is used and what other runs hold
 * (its own reservation is its to spend). 0 or less: its next call must not go out.
 */
export function roomFor(limits: EffectiveLimits, c: Committed): { guild: number; member: number } {
  const guild = limits.guildDailyTokens > 0 ? limits.guildDailyTokens - c.guildUsed - (c.guildReserved - c.ownReserved) : Infinity;
  const member = !limits.exempt && limits.userDailyTokens > 0 ? limits.userDailyTokens - c.memberUsed - (c.memberReserved - c.ownReserved) : Infinity;
  return { guild, member };
}

/** Whether any daily token cap applies to these limits. */
function capped(limits: EffectiveLimits): boolean {
  return limits.guildDailyTokens > 0 || (!limits.exempt && limits.userDailyTokens > 0);
}

/** Build the ticket for an admitted run. */
export function createTicket(deps: TicketDeps, spec: TicketSpec): UsageTicket {
  let runCounted = false;
  let released = false;
  // The claim in force: a waiting message's (caps only) until `hold` swaps in the run's own.
  let claim = { id: spec.id, reserved: spec.reserved, held: spec.hold === undefined };
  const { subject, limits } = spec;
  const where = subject.guildId === null ? 'dm' : 'server';
  const committed = () => deps.counters.committed(utcDay(deps.now()), spec.scope, subject.userId, claim.id, deps.now().getTime());
  return {
    get id() {
      return claim.id;
    },
    subject,
    limits,
    get reserved() {
      return claim.reserved;
    },
    async hold() {
      if (claim.held || released || !spec.hold) return { ok: true };
      const taken = await spec.hold();
      if (!taken.ok) return taken;
      const waiting = claim.id;
      claim = { id: taken.id, reserved: taken.reserved, held: true };
      deps.forget(waiting);
      await deps.counters.unclaim(spec.scope, waiting).catch(() => undefined);
      return { ok: true };
    },
    async record(usage: Usage, model: string): Promise<RecordResult> {
      const cost = costNanoUsd(usage, model, deps.prices);
      const day = utcDay(deps.now());
      const countsRun = !runCounted;
      // Set before the write: a failed write may still have landed (a timeout), and missing one run in
      // the tally is better than counting it twice.
      runCounted = true;
      const totals = await deps.counters.add(
        { day, scope: spec.scope, userId: subject.userId, channelId: subject.channelId },
        {
          inputTokens: clean(usage.promptTokens),
          outputTokens: clean(usage.completionTokens),
          totalTokens: clean(usage.totalTokens || usage.promptTokens + usage.completionTokens),
          costNanoUsd: cost,
          runs: countsRun ? 1 : 0,
        },
        spec.claimed && !released ? claim.id : undefined,
      );
      deps.prune(day);
      return { ...totals, remainingTokens: tokensLeft(limits, totals.member, totals.guild), costNanoUsd: cost };
    },
    async check(): Promise<Refusal | undefined> {
      if (!capped(limits)) return undefined;
      const c = await committed();
      const room = roomFor(limits, c);
      const resetsAt = nextUtcMidnight(deps.now());
      // `<= 0`: a cap spent exactly has nothing left for another call.
      if (room.guild <= 0) return { limit: 'guildDailyTokens', current: c.guildUsed, max: limits.guildDailyTokens, resetsAt, where, reserved: c.guildReserved - c.ownReserved };
      if (room.member <= 0) return { limit: 'userDailyTokens', current: c.memberUsed, max: limits.userDailyTokens, resetsAt, where, reserved: c.memberReserved - c.ownReserved };
      return undefined;
    },
    async remainingTokens() {
      if (!capped(limits)) return Infinity;
      const room = roomFor(limits, await committed());
      return Math.max(0, Math.min(room.guild, room.member));
    },
    // A failed release is not retried: the heartbeat stops renewing the claim, which then expires.
    async release() {
      if (released) return;
      released = true;
      deps.forget(claim.id);
      if (spec.claimed) await deps.counters.unclaim(spec.scope, claim.id);
    },
  };
}

/** Token counts from a server are not always well-formed; a negative or fractional count is not a count. */
function clean(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}
