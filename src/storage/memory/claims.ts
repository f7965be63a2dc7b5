/** Occurrence claims in process memory (tests, the terminal runner): the rules of ../occurrence-claims.ts over a Map. */
import type { OccurrenceClaims, OccurrenceMark } from '../occurrence-claims.js';

/** One schedule's row: the mark, the last run before the claimed one, and an unsettled lease. */
interface MarkRow extends OccurrenceMark {
  prevRunMs?: number;
  lease?: { token: string; endsMs: number };
}

/** Claims in process memory (tests, the terminal runner): every call's work is synchronous. */
export function memoryClaims(): OccurrenceClaims {
  const rows = new Map<string, MarkRow>();
  return {
    async claim(schedule, atMs, mode, lease) {
      const row = rows.get(schedule);
      const takeover = row?.lastMs === atMs && row.lease !== undefined && row.lease.endsMs < lease.nowMs;
      if (row && row.lastMs >= atMs && !takeover) return row.lastMs === atMs && row.lease ? { won: false, leaseEndsMs: row.lease.endsMs } : { won: false };
      // A claim never settled never ran: the last run before it is the last that did.
      const lastRan = row?.lease ? row.prevRunMs : row?.lastRunMs;
      rows.set(schedule, {
        lastMs: atMs,
        ...((mode === 'run' ? atMs : lastRan) !== undefined ? { lastRunMs: mode === 'run' ? atMs : lastRan } : {}),
        ...(lastRan !== undefined ? { prevRunMs: lastRan } : {}),
        ...(mode === 'run' ? { lease: { token: lease.token, endsMs: lease.endsMs } } : {}),
      });
      return { won: true, ...(lastRan !== undefined ? { lastRunMs: lastRan } : {}) };
    },
    async settle(schedule, atMs, token) {
      const row = rows.get(schedule);
      if (row?.lastMs !== atMs || row.lease?.token !== token) return false;
      delete row.lease;
      return true;
    },
    async marks(schedules) {
      return new Map(schedules.flatMap((s) => {
        const row = rows.get(s);
        return row ? [[s, { lastMs: row.lastMs, ...(row.lastRunMs !== undefined ? { lastRunMs: row.lastRunMs } : {}) }] as const] : [];
      }));
    },
    async forget(schedule) {
      rows.delete(schedule);
    },
    async close() {},
  };
}
