/**
 * Usage limits and accounting. Open with `createUsageLimiter({ backend, ... })` over the storage's
 * backend; compute the limits with `effectiveLimits` (src/policy/limits.ts); call `admit` before a
 * run, `ticket.check` before each model call and `ticket.record` after it, `ticket.release` when the
 * run ends.
 */
export { CLAIM_TIMING, createUsageLimiter, runReservation, type AdmitOptions, type UsageLimiter, type UsageLimiterOptions } from './usage-limiter.js';
export type {
  Admission,
  EffectiveLimits,
  GuildUsageReport,
  LimitName,
  MemberUsageReport,
  RecordResult,
  Refusal,
  UsageLimits,
  UsageSubject,
  UsageTicket,
  UsageTotals,
} from './types.js';
export { emptyTotals } from './types.js';
export type { DailyTake } from './daily-allowance.js';
export type { GuildHistory } from './guild-history.js';
export { nextUtcMidnight, utcDay } from './days.js';
export {
  BUILT_IN_PRICES,
  NANO_USD_PER_USD,
  costNanoUsd,
  formatUsd,
  parseModelPrices,
  priceOf,
  priceTable,
  type ModelPrice,
  type PriceTable,
} from './model-prices.js';
