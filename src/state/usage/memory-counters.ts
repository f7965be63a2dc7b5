/**
 * Leases and counters in process memory, for tests and the terminal runner. Every method does its work
 * synchronously before it returns a promise, so concurrent callers in this process cannot interleave.
 */
import type { CounterKey, CounterStore, RankedKind } from './counter-store.js';
import { TOTAL_FIELDS } from './counter-store.js';
import { emptyTotals, type UsageTotals } from './types.js';

/** An empty in-memory CounterStore. */
export function memoryCounters(): CounterStore {
  const leases = new Map<string, Map<string, number>>();
  // day → scope → "member:<id>" | "channel:<id>" | "guild" → totals
  const days = new Map<string, Map<string, Map<string, UsageTotals>>>();

  const live = (holder: string, nowMs: number) => {
    const mine = leases.get(holder) ?? new Map<string, number>();
    for (const [id, expiresAt] of mine) if (expiresAt <= nowMs) mine.delete(id);
    leases.set(holder, mine);
    return mine;
  };
  const rows = (day: string, scope: string) => {
    let byScope = days.get(day);
    if (!byScope) days.set(day, (byScope = new Map()));
    let byRow = byScope.get(scope);
    if (!byRow) byScope.set(scope, (byRow = new Map()));
    return byRow;
  };
  const bump = (row: Map<string, UsageTotals>, name: string, delta: UsageTotals) => {
    const totals = row.get(name) ?? emptyTotals();
    for (const field of TOTAL_FIELDS) totals[field] += delta[field];
    row.set(name, totals);
    return { ...totals };
  };

  return {
    async acquire(holder, leaseId, max, nowMs, expiresAtMs) {
      const mine = live(holder, nowMs);
      if (mine.size >= max) return { ok: false, held: mine.size };
      mine.set(leaseId, expiresAtMs);
      return { ok: true, held: mine.size };
    },
    async release(holder, leaseId) {
      leases.get(holder)?.delete(leaseId);
    },
    async held(holder, nowMs) {
      return live(holder, nowMs).size;
    },
    async add(key: CounterKey, delta) {
      const row = rows(key.day, key.scope);
      const member = bump(row, `member:${key.userId}`, delta);
      bump(row, `channel:${key.channelId}`, delta);
      return { member, guild: bump(row, 'guild', delta) };
    },
    async totals(day, scope, userId) {
      const row = days.get(day)?.get(scope);
      return {
        member: { ...(userId !== undefined ? row?.get(`member:${userId}`) ?? emptyTotals() : emptyTotals()) },
        guild: { ...(row?.get('guild') ?? emptyTotals()) },
      };
    },
    async top(day, scope, kind: RankedKind, limit) {
      const prefix = `${kind}:`;
      return [...(days.get(day)?.get(scope) ?? new Map<string, UsageTotals>())]
        .filter(([name]) => name.startsWith(prefix))
        .map(([name, totals]) => ({ id: name.slice(prefix.length), totals: { ...totals } }))
        .sort((a, b) => b.totals.totalTokens - a.totals.totalTokens || a.id.localeCompare(b.id))
        .slice(0, limit);
    },
    async prune(beforeDay) {
      for (const day of days.keys()) if (day < beforeDay) days.delete(day);
    },
  };
}
