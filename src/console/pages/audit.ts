/**
 * The audit log: filters (member, channel, action, dates) as a GET form, so a filtered page is a link;
 * the entries newest first, each line rendered from the bot's markup with everything in it escaped (a
 * tool's arguments or a member's words may hold anything); the next page; the same filters as CSV.
 */
import type { AuditEntry } from '../../state/index.js';
import { html, type Html } from '../html.js';
import { discordMarkup, utcTime, type MentionNames } from '../markup.js';
import type { Place } from '../places.js';
import { layout, type Frame } from './layout.js';

/** The kinds of action the filter offers (a kind matches its sub-kinds: `tools` is every `tools.…`). */
export const ACTION_KINDS: ReadonlyArray<[string, string]> = [
  ['tools', 'tools (rules, approvals, log channel)'], ['tools.approval', 'approval decisions'], ['settings', 'settings'],
  ['kb', 'knowledge base'], ['schedule', 'schedules'], ['memory', 'memory'], ['export', 'exports'],
];

/** The filters as the form holds them (strings, as typed). */
export interface AuditFilters {
  member: string;
  channel: string;
  action: string;
  from: string;
  to: string;
}

const selected = (a: string, b: string) => (a === b ? html` selected` : '');

/** The audit page: filters, one page of entries, and the links to the next page and the CSV. */
export function auditPage(frame: Frame, guildId: string, filters: AuditFilters, entries: readonly AuditEntry[], next: string | undefined, places: readonly Place[], names: MentionNames, problem?: string): Html {
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ''));
  const rows = entries.map((e) => html`<tr><td><time>${utcTime(e.at)}</time></td><td>${e.actorName ?? e.actorId} <span class="muted">${e.actorId}</span></td><td>${discordMarkup(e.detail ?? e.action, names)}${e.via === 'console' ? html` <span class="muted">(in the web console)</span>` : ''}</td><td><code>${e.action}</code></td></tr>`);
  const nextQuery = next ? new URLSearchParams([...query, ['cursor', next]]) : undefined;
  return layout(frame, html`<h1>Audit log</h1>${problem ? html`<div class="notice problem">${problem}</div>` : ''}
<form class="inline card" method="get" action="/g/${guildId}/audit">
<label>Member id<input name="member" value="${filters.member}" inputmode="numeric" placeholder="any"></label>
<label>Channel<select name="channel"><option value="">any</option>${places.filter((p) => p.value !== 'guild').map((p) => html`<option value="${p.value}"${selected(p.value, filters.channel)}>${p.label}</option>`)}</select></label>
<label>Action<select name="action"><option value="">any</option>${ACTION_KINDS.map(([v, l]) => html`<option value="${v}"${selected(v, filters.action)}>${l}</option>`)}</select></label>
<label>From (UTC)<input type="date" name="from" value="${filters.from}"></label><label>To (UTC, included)<input type="date" name="to" value="${filters.to}"></label>
<button type="submit">Filter</button> <a class="button secondary" href="/g/${guildId}/audit.csv${query.size ? `?${query}` : ''}">CSV</a></form>
${entries.length === 0 ? html`<p class="muted">No entries${query.size ? ' match these filters' : ' yet: nobody has changed anything here'}.</p>` : html`<div class="scroll"><table><thead><tr><th>When</th><th>Who</th><th>What</th><th>Action</th></tr></thead><tbody>${rows}</tbody></table></div>`}
<div class="pager">${nextQuery ? html`<a class="button secondary" href="/g/${guildId}/audit?${nextQuery.toString()}">Older entries</a>` : ''}</div>`);
}

/** A CSV cell: quoted, quotes doubled, and a leading `=`, `+`, `-`, `@` or tab made inert for spreadsheets. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The entries as CSV (RFC 4180), newest first. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const header = ['time_utc', 'actor_id', 'actor_name', 'action', 'detail', 'via'].join(',');
  return [header, ...entries.map((e) => [new Date(e.at).toISOString(), e.actorId, e.actorName ?? '', e.action, e.detail ?? '', e.via ?? ''].map(cell).join(','))].join('\r\n') + '\r\n';
}
