/** The UTC days the daily counters are kept by, and when they start again. */

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
