/**
 * The audit log page and its CSV, through the rules object's paginated read (`rules.auditPage`). The
 * filters come from the query string and are checked: a member must be an id, a date `YYYY-MM-DD`.
 */
import type { Hono } from 'hono';
import type { AuditQuery } from '../../discord/rules/rules.js';
import type { AuditEntry } from '../../state/index.js';
import type { ConsoleContext, ConsoleDeps, ConsoleEnv } from '../context.js';
import { namesFor } from '../names.js';
import { auditCsv, auditPage, type AuditFilters } from '../pages/audit.js';
import { placesOf } from '../places.js';
import { frameOf, page } from './guard.js';

/** Entries per page, and the most a CSV export holds. */
const PAGE = 50;
const CSV_MAX = 100_000;

/** The filters of the query, and the query for the rules object, or what is wrong with them. */
function readFilters(c: ConsoleContext): { filters: AuditFilters; query: AuditQuery; problem?: string } {
  const get = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 40);
  const filters: AuditFilters = { member: get('member'), channel: get('channel'), action: get('action'), from: get('from'), to: get('to') };
  const day = (text: string, after: number) => (/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ? Date.parse(`${text}T00:00:00Z`) + after : undefined);
  const problems: string[] = [];
  if (filters.member && !/^\d{17,20}$/.test(filters.member)) problems.push('A member is filtered by their Discord id (17 to 20 digits).');
  if (filters.channel && !/^\d{17,20}$/.test(filters.channel)) problems.push('Choose a channel from the list.');
  if (filters.action && !/^[a-z][a-z.-]{0,39}$/.test(filters.action)) problems.push('Choose an action from the list.');
  const from = filters.from ? day(filters.from, 0) : undefined;
  const to = filters.to ? day(filters.to, 86_400_000) : undefined;
  if (filters.from && from === undefined) problems.push('Dates are written YYYY-MM-DD.');
  if (filters.to && to === undefined && !problems.includes('Dates are written YYYY-MM-DD.')) problems.push('Dates are written YYYY-MM-DD.');
  const query: AuditQuery = problems.length ? {} : {
    ...(filters.member ? { actorId: filters.member } : {}),
    ...(filters.channel ? { channelId: filters.channel } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
  return { filters, query, ...(problems.length ? { problem: `${problems.join(' ')} The filters were not applied.` } : {}) };
}

export function auditRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get('/g/:guildId/audit', async (c) => {
    const { guild } = c.var.access;
    const { filters, query, problem } = readFilters(c);
    const cursor = c.req.query('cursor');
    const [found, names] = await Promise.all([deps.rules.auditPage(guild.id, { ...query, limit: PAGE, ...(cursor && !problem ? { cursor } : {}) }), namesFor(deps.discord, guild)]);
    return page(c, auditPage(frameOf(c, 'Audit log', 'audit'), guild.id, filters, found.entries, found.next, placesOf(guild.id, names.channels), names, problem), problem ? 400 : 200);
  });

  app.get('/g/:guildId/audit.csv', async (c) => {
    const { guild } = c.var.access;
    const { query, problem } = readFilters(c);
    if (problem) return c.text(`${problem}\n`, 400);
    const entries: AuditEntry[] = [];
    for (let cursor: string | undefined; entries.length < CSV_MAX;) {
      const found = await deps.rules.auditPage(guild.id, { ...query, limit: 500, ...(cursor ? { cursor } : {}) });
      entries.push(...found.entries);
      if (!found.next) break;
      cursor = found.next;
    }
    const day = deps.now().toISOString().slice(0, 10);
    return c.body(auditCsv(entries.slice(0, CSV_MAX)), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="audit-${guild.id}-${day}.csv"` });
  });
}
