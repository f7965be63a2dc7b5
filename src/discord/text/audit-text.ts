/**
 * How the audit trail reads in Discord: `/tools audit`'s list and the log channel's line for a change,
 * with Discord's own markup (`<t:…:f>` times in the reader's zone, `<@id>` names). The entries themselves
 * are pure policy (src/policy/audit.ts).
 */
import { escapeDisplayName } from '../../agent/clean-text.js';
import type { ChangeRecord } from '../../policy/index.js';
import type { AuditEntry } from '../../state/guild-settings-schema.js';
import { MESSAGE_LIMIT } from '../posting/split-message.js';

/** Discord's limit on how many entries `/tools audit` may show in one reply. */
export const AUDIT_SHOW_MAX = 25;

/** Where a change was made, after its sentence: nothing for a Discord command. */
function viaNote(via: string | undefined): string {
  return via === 'console' ? ' (in the web console)' : '';
}

/** One entry: Discord renders `<t:…:f>` in the reader's own time zone. */
export function formatAuditEntry(entry: AuditEntry): string {
  const who = entry.actorName ? `**${escapeDisplayName(entry.actorName)}** (<@${entry.actorId}>)` : `<@${entry.actorId}>`;
  return `<t:${Math.floor(entry.at / 1000)}:f> ${who} ${entry.detail ?? entry.action}${viaNote(entry.via)}`;
}

/** The newest `count` entries, newest first, cut to fit one 2,000-character message. */
export function formatAuditLog(entries: readonly AuditEntry[], count: number): string {
  if (entries.length === 0) return 'No changes recorded yet: nobody has used `/tools`, `/settings` or `/kb` here.';
  const shown = entries.slice(-count).reverse();
  const header = `**Last ${shown.length} change${shown.length === 1 ? '' : 's'}** (newest first, ${entries.length} recorded):`;
  const lines: string[] = [header];
  let length = header.length;
  for (const entry of shown) {
    const line = formatAuditEntry(entry);
    if (length + line.length + 40 > 2000) {
      lines.push(`-# …and ${shown.length - (lines.length - 1)} older entries; ask for fewer to read them.`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

/** The log-channel post for a change. */
export function logChannelLine(change: ChangeRecord): string {
  return `🛠️ **${escapeDisplayName(change.actorName)}** (<@${change.actorId}>) ${change.detail}${viaNote(change.via)}`.slice(0, MESSAGE_LIMIT);
}
