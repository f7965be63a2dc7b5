/**
 * A page of a guild's audit log, newest first, narrowed by who acted, the channel a line names, the kind
 * of action and a span of time, with a cursor for the page after. Over the entries the settings record
 * keeps today; when the audit log gets a store of its own, this read moves there and its callers (the
 * web console) do not change: the filter and the cursor are opaque to them.
 */
import type { AuditEntry } from '../../state/index.js';

/** Which audit entries to read (every field optional), and how many. */
export interface AuditQuery {
  /** A kind of action: `tools` matches `tools.enable`, `tools.approval.ask`… */
  action?: string;
  /** Who acted. */
  actorId?: string;
  /** Lines that name this channel or category (`<#id>` in the line). */
  channelId?: string;
  /** From this moment on (epoch ms, included). */
  from?: number;
  /** Before this moment (epoch ms, excluded). */
  to?: number;
  /** The `next` of the page before: where this page starts. */
  cursor?: string;
  /** Entries per page (1-500; default 50). */
  limit?: number;
}

/** A page of entries, newest first, and the cursor of the next page (none: this was the last). */
export interface AuditPage {
  entries: AuditEntry[];
  next?: string;
}

/** An entry is of `action` when its action is that one or starts with it and a dot. */
export const ofAction = (entry: AuditEntry, action: string) => entry.action === action || entry.action.startsWith(`${action}.`);

/** Whether `entry` passes every filter of `query` (the cursor and the page size aside). */
export function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (query.action === undefined || ofAction(entry, query.action))
    && (query.actorId === undefined || entry.actorId === query.actorId)
    && (query.channelId === undefined || (entry.detail ?? '').includes(`<#${query.channelId}>`))
    && (query.from === undefined || entry.at >= query.from)
    && (query.to === undefined || entry.at < query.to);
}

/**
 * A cursor names the last entry shown: its time and how many entries of that same millisecond were shown,
 * so entries appended meanwhile (always later) never shift the pages.
 */
function readCursor(cursor: string | undefined): { at: number; seen: number } | undefined {
  const parts = /^(\d{1,16})\.(\d{1,6})$/.exec(cursor ?? '');
  return parts ? { at: Number(parts[1]), seen: Number(parts[2]) } : undefined;
}

/** One page of `entries` (oldest first, as kept) for `query`. */
export function auditPage(entries: readonly AuditEntry[], query: AuditQuery): AuditPage {
  const limit = Math.min(Math.max(Math.floor(query.limit ?? 50), 1), 500);
  const after = readCursor(query.cursor);
  const page: AuditEntry[] = [];
  let sameAt = 0;
  let lastAt: number | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (!matches(entry, query)) continue;
    if (after && entry.at > after.at) continue;
    if (after && entry.at === after.at && sameAt < after.seen) {
      sameAt++;
      continue;
    }
    if (page.length === limit) {
      const shownAtLast = page.filter((e) => e.at === lastAt).length + (after && lastAt === after.at ? after.seen : 0);
      return { entries: page, next: `${lastAt}.${shownAtLast}` };
    }
    page.push(entry);
    lastAt = entry.at;
  }
  return { entries: page };
}
