/**
 * The audit trail of moderator changes: one entry per change (who, when, what, where) stored with the
 * guild's settings. Pure functions; how entries read in Discord is in src/discord/text/audit-text.ts.
 */
import type { AuditEntry, GuildSettings } from '../state/guild-settings-schema.js';

/**
 * A change as the commands describe it. `detail` is a sentence fragment the Discord layer wrote (what was
 * changed and where), stored as it will be shown.
 */
export interface ChangeRecord {
  actorId: string;
  actorName: string;
  /** Machine-readable kind, e.g. `tools.disable`, `settings.display`. */
  action: string;
  detail: string;
  /** Where the change was made, when not by a Discord command: `console`, the web console. */
  via?: 'console';
}

/** The settings with the change appended to the audit log (the store keeps only the newest entries). */
export function withAuditEntry(settings: GuildSettings, change: ChangeRecord, at: number): GuildSettings {
  const entry: AuditEntry = { at, actorId: change.actorId, actorName: change.actorName, action: change.action, detail: change.detail, ...(change.via ? { via: change.via } : {}) };
  return { ...settings, auditLog: [...settings.auditLog, entry] };
}
