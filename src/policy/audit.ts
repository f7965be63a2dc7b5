/**
 * The audit trail of moderator changes: one entry per change (who, when, what, where) stored with the
 * guild's settings, and the same change as one line for the log channel. Pure functions.
 */
import { escapeDisplayName } from '../agent/clean-text.js';
import type { AuditEntry, GuildSettings } from '../state/guild-settings-schema.js';

/** A change as the commands describe it. `detail` is a sentence fragment: `disabled \`calculate\` in <#1>`. */
export interface ChangeRecord {
  actorId: string;
  actorName: string;
  /** Machine-readable kind, e.g. `tools.disable`, `settings.display`. */
  action: string;
  detail: string;
}

/** Discord's limit on how many entries `/tools audit` may show in one reply. */
export const AUDIT_SHOW_MAX = 25;

/** The settings with the change appended to the audit log (the store keeps only the newest entries). */
export function withAuditEntry(settings: GuildSettings, change: ChangeRecord, at: number): GuildSettings {
  const entry: AuditEntry = { at, actorId: change.actorId, actorName: change.actorName, action: change.action, detail: change.detail };
  return { ...settings, auditLog: [...settings.auditLog, entry] };
}

/** One entry: Discord renders `<t:…:f>` in the reader's own time zone. */
export function formatAuditEntry(entry: AuditEntry): string {
  const who = entry.actorName ? `**${escapeDisplayName(entry.actorName)}** (<@${entry.actorId}>)` : `<@${entry.actorId}>`;
  return `<t:${Math.floor(entry.at / 1000)}:f> ${who} ${entry.detail ?? entry.action}`;
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
  return `🛠️ **${escapeDisplayName(change.actorName)}** (<@${change.actorId}>) ${change.detail}`.slice(0, 2000);
}
