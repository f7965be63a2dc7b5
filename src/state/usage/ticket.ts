/**
 * An admitted run's ticket: it counts each model call for the member, the channel and the server,
 * reports the tokens left under the daily caps, and gives the concurrency slot back.
 */
import type { Usage } from '../../agent/types.js';
import { utcDay, type CounterStore } from './counter-store.js';
import { costNanoUsd, type PriceTable } from './model-prices.js';
import type { LeaseResult } from './counter-store.js';
import type { EffectiveLimits, RecordResult, Refusal, UsageSubject, UsageTicket, UsageTotals } from './types.js';

/** What every ticket of one limiter shares. */
export interface TicketDeps {
  counters: CounterStore;
  now: () => Date;
  prices: PriceTable;
  /** Called with the day of each record, so old days get cleaned up now and then. */
  prune(day: string): void;
}

/** One admitted run. `holder` is set when the run needs a concurrency lease; `held` when it has it. */
export interface TicketSpec {
  id: string;
  subject: UsageSubject;
  limits: EffectiveLimits;
  scope: string;
  holder?: string;
  held?: boolean;
  /** Take the lease (for a ticket admitted with its slot taken later). */
  acquire?: () => Promise<LeaseResult>;
  where?: Refusal['where'];
}

/** Tokens left under the caps that apply; Infinity when none does. */
export function tokensLeft(limits: EffectiveLimits, member: UsageTotals, guild: UsageTotals): number {
  let left = Infinity;
  if (limits.guildDailyTokens > 0) left = Math.min(left, limits.guildDailyTokens - guild.totalTokens);
  if (!limits.exempt && limits.userDailyTokens > 0) left = Math.min(left, limits.userDailyTokens - member.totalTokens);
  return Math.max(0, left);
}

/** Build the ticket for an admitted run. */
export function createTicket(deps: TicketDeps, spec: TicketSpec): UsageTicket {
  let runCounted = false;
  let released = false;
  let held = spec.held ?? false;
  const { subject, limits } = spec;
  return {
    id: spec.id,
    subject,
    limits,
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
      );
      deps.prune(day);
      return { ...totals, remainingTokens: tokensLeft(limits, totals.member, totals.guild), costNanoUsd: cost };
    },
    async remainingTokens() {
      if (limits.guildDailyTokens <= 0 && (limits.exempt || limits.userDailyTokens <= 0)) return Infinity;
      const { member, guild } = await deps.counters.totals(utcDay(deps.now()), spec.scope, subject.userId);
      return tokensLeft(limits, member, guild);
    },
    async hold() {
      if (held || released || !spec.holder || !spec.acquire) return { ok: true };
      const lease = await spec.acquire();
      if (!lease.ok) return { ok: false, limit: 'concurrentRuns', current: lease.held, max: limits.concurrentRuns, resetsAt: null, where: spec.where ?? 'server' };
      held = true;
      return { ok: true };
    },
    // A failed release is not retried: the lease expires by itself after `leaseMs`.
    async release() {
      if (released || !spec.holder) return;
      released = true;
      if (!held) return;
      await deps.counters.release(spec.holder, spec.id);
    },
  };
}

/** Token counts from a server are not always well-formed; a negative or fractional count is not a count. */
function clean(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}
