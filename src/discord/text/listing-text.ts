/**
 * What an outside (MCP) tool says of itself, as text: its listing in full as the model reads it, the
 * lines that changed between the listing pinned when a moderator enabled it and the listing now, and a
 * short summary of what changed. `/tools show` puts them in code blocks; the web console in escaped
 * HTML. Everything in a listing came from its server: callers keep it inert.
 */
import { escapeInline } from '../../agent/clean-text.js';
import type { ToolListing } from '../../agent/tool.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** A listing in full, as plain text (the file's content, and the reply's when short). */
export function listingText(listing: Pick<ToolListing, 'tool' | 'title' | 'description' | 'schema' | 'annotations'>): string {
  const hints = Object.entries(listing.annotations).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  let schema = listing.schema;
  try {
    schema = JSON.stringify(JSON.parse(listing.schema), null, 2);
  } catch {
    /* shown as stored */
  }
  return [`tool: ${listing.tool}`, `title: ${listing.title ?? '(none)'}`, `annotations: ${hints}`, 'description (what the model reads):', listing.description, 'parameters (the schema the model is offered):', schema].join('\n');
}

/**
 * The lines of `before` and `after` that differ, as a unified-style diff (`-` pinned, `+` now), with a
 * line of context around each change. Longest common subsequence over at most 400 lines a side.
 */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n').slice(0, 400);
  const b = after.split('\n').slice(0, 400);
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const rows: Array<{ mark: ' ' | '-' | '+'; line: string }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) rows.push({ mark: ' ', line: a[i++]! }), j++;
    else if (j < b.length && (i >= a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) rows.push({ mark: '+', line: b[j++]! });
    else rows.push({ mark: '-', line: a[i++]! });
  }
  const near = (k: number) => rows.slice(Math.max(0, k - 1), k + 2).some((r) => r.mark !== ' ');
  return rows.filter((r, k) => r.mark !== ' ' || near(k)).map((r) => `${r.mark} ${r.line}`).join('\n');
}

/** What changed between a pinned listing and the listing now, field by field, short enough for a message. */
export function changeSummary(pinned: ToolListing | undefined, now: ToolListing): string {
  if (!pinned) return 'It was enabled before the bot kept what it pinned (or its pin covered less then), so there is no old text to compare: check it as if new.';
  const fields: Array<[string, string, string]> = [
    ['title', pinned.title ?? '(none)', now.title ?? '(none)'],
    ['description', pinned.description, now.description],
    ['annotations', JSON.stringify(pinned.annotations), JSON.stringify(now.annotations)],
  ];
  const lines = fields.filter(([, was, is]) => was !== is).map(([field, was, is]) => `**${field}**: was «${escapeInline(was, TEXT_CAPS.changedField)}» → now «${escapeInline(is, TEXT_CAPS.changedField)}»`);
  if (pinned.schema !== now.schema) lines.push('**parameters** changed (`/tools show` has the whole difference).');
  return lines.join('\n') || 'Nothing the model reads changed.';
}
