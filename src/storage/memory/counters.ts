/**
 * Claims and counters in process memory, for tests and the terminal runner. Every method does its work
 * synchronously before it returns a promise, so concurrent callers in this process cannot interleave.
 */
import { claimVerdict, emptyTotals, TOTAL_FIELDS, type ClaimSpec, type CounterKey, type CounterStore, type RankedKind, type UsageTotals } from '../usage-store.js';

/** An empty in-memory CounterStore. */
export function memoryCounters(): CounterStore {
  const claims = new Map<string, ClaimSpec & { reserved: number; used: number; expiresAt: number }>();
  // day → scope → "member:<id>" | "channel:<id>" | "guild" → totals
  const days = new Map<string, Map<string, Map<string, UsageTotals>>>();

  const live = (nowMs: number) => {
    for (const [id, c] of claims) if (c.expiresAt <= nowMs) claims.delete(id);
    return [...claims.values()];
  };
  const held = (list: ReturnType<typeof live>) => list.reduce((sum, c) => sum + Math.max(0, c.reserved - c.used), 0);
  const committed = (day: string, scope: string, userId: string, claimId: string, nowMs: number) => {
    const inScope = live(nowMs).filter((c) => c.scope === scope);
    const mine = inScope.filter((c) => c.userId === userId);
    const row = days.get(day)?.get(scope);
    return {
      memberUsed: row?.get(`member:${userId}`)?.totalTokens ?? 0,
      guildUsed: row?.get('guild')?.totalTokens ?? 0,
      memberReserved: held(mine),
      guildReserved: held(inScope),
      ownReserved: held(inScope.filter((c) => c.id === claimId)),
      memberRuns: mine.filter((c) => c.leased).length,
    };
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
    async claim(spec, rules) {
      const verdict = claimVerdict(committed(rules.day, spec.scope, spec.userId, '', rules.nowMs), spec, rules);
      if (verdict.ok) claims.set(spec.id, { ...spec, reserved: verdict.reserved, used: 0, expiresAt: rules.expiresAtMs });
      return verdict;
    },
    async unclaim(_scope, id) {
      claims.delete(id);
    },
    async renew(list, expiresAtMs) {
      for (const { id } of list) {
        const c = claims.get(id);
        if (c) c.expiresAt = expiresAtMs;
      }
    },
    async releaseSlot(slot, owner) {
      let dropped = 0;
      for (const [id, c] of claims) if (c.slot === slot && c.owner !== owner && claims.delete(id)) dropped++;
      return dropped;
    },
    async committed(day, scope, userId, claimId, nowMs) {
      return committed(day, scope, userId, claimId, nowMs);
    },
    async add(key: CounterKey, delta, claimId) {
      const claim = claimId !== undefined ? claims.get(claimId) : undefined;
      if (claim) claim.used += delta.totalTokens;
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
