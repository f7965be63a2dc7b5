/**
 * A server's usage over its last days, from the daily counters: each day's totals (runs, tokens, cost)
 * and the busiest members and channels over the whole span. The counters keep one row per member,
 * channel and server per UTC day, so a span is a read per day; the busiest are summed from each day's
 * `perDay` busiest (exact unless more than that many were active on one day).
 */
import type { CounterStore } from '../../storage/usage-store.js';
import { utcDayBefore } from './days.js';
import { emptyTotals, type UsageTotals } from './types.js';

/** One server's usage over its last days, oldest day first. */
export interface GuildHistory {
  days: Array<{ day: string; totals: UsageTotals }>;
  topMembers: Array<{ userId: string; totals: UsageTotals }>;
  topChannels: Array<{ channelId: string; totals: UsageTotals }>;
}

/** Each day's busiest members and channels that the span's ranking sums. */
const PER_DAY = 50;

const add = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens,
  costNanoUsd: a.costNanoUsd + b.costNanoUsd,
  runs: a.runs + b.runs,
});

/** The last `days` UTC days up to `now`'s (today included) of scope `scope`, with the `top` busiest. */
export async function guildHistory(counters: Pick<CounterStore, 'totals' | 'top'>, scope: string, now: Date, days: number, top: number): Promise<GuildHistory> {
  const dayList = Array.from({ length: days }, (_, i) => utcDayBefore(now, days - 1 - i));
  const read = await Promise.all(dayList.map(async (day) => {
    const [{ guild }, members, channels] = await Promise.all([
      counters.totals(day, scope),
      counters.top(day, scope, 'member', PER_DAY),
      counters.top(day, scope, 'channel', PER_DAY),
    ]);
    return { day, guild, members, channels };
  }));
  const sum = (rows: Array<Array<{ id: string; totals: UsageTotals }>>) => {
    const totals = new Map<string, UsageTotals>();
    for (const row of rows.flat()) totals.set(row.id, add(totals.get(row.id) ?? emptyTotals(), row.totals));
    return [...totals].sort((a, b) => b[1].totalTokens - a[1].totalTokens).slice(0, top);
  };
  return {
    days: read.map((r) => ({ day: r.day, totals: r.guild })),
    topMembers: sum(read.map((r) => r.members)).map(([userId, totals]) => ({ userId, totals })),
    topChannels: sum(read.map((r) => r.channels)).map(([channelId, totals]) => ({ channelId, totals })),
  };
}
