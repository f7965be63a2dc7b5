/**
 * The rules object: the one door to the guild settings. `rules.at(scope)` gives the rules of a place for
 * a run, with every fallback for a store that cannot be read decided (place-rules.ts, the tool policy
 * included); commands and the web console show the settings with `snapshot`, `auditLog` and `auditPage`, and
 * change them only through its named writes (setting-writes.ts, tool-writes.ts), each of which saves its
 * change with its audit entry and posts it to the log channel in the same call (audit-trail.ts). Nothing
 * outside this folder touches the settings store (test/architecture.test.ts checks it).
 */
import type { Logger } from '../../logger.js';
import type { AllowedTools, ChannelDefaults, RunScope } from '../../policy/index.js';
import type { AuditEntry, GuildSettings, GuildSettingsStore, UsageLimits } from '../../state/index.js';
import { auditPage, ofAction, type AuditPage, type AuditQuery } from './audit-pages.js';
import { createAuditTrail, type Actor, type AuditLine, type LogChannelPost } from './audit-trail.js';
import { createPlaceRules, readerOf, type PlaceRules } from './place-rules.js';
import { createSettingWrites, type SettingWrites } from './setting-writes.js';
import { createToolWrites, type ToolWrites } from './tool-writes.js';

// What the turn takes of a place's rules, where the rules object's users find it.
export { allowedForAll, type PlaceRules } from './place-rules.js';
export type { AuditPage, AuditQuery } from './audit-pages.js';

/** Which audit entries to read: by kind of action (`tools` matches `tools.enable`, `tools.approval.ask`…) and by who acted. */
export interface AuditFilter {
  action?: string;
  actorId?: string;
}

/** The rules of every place, and the one door to the guild settings they come from. */
export interface Rules extends SettingWrites, ToolWrites {
  at(scope: RunScope): PlaceRules;
  /** A guild's settings as stored now, for a command (or the console) that shows them. Throws when they cannot be read. */
  snapshot(guildId: string): Promise<GuildSettings>;
  /** A guild's audit log, oldest first (the store keeps the newest entries), narrowed by `filter`. Throws when it cannot be read. */
  auditLog(guildId: string, filter?: AuditFilter): Promise<AuditEntry[]>;
  /** A page of a guild's audit log, newest first, by member, channel, action and time, with the cursor of the next (the web console). Throws when it cannot be read. */
  auditPage(guildId: string, query: AuditQuery): Promise<AuditPage>;
  /**
   * Record an action done outside the settings (a document added, a schedule paused, an approval): its
   * audit entry, then its line in the log channel unless `logChannel` is false (an export is only in the
   * audit log). Rejects when the entry cannot be saved.
   */
  recordAction(guildId: string, actor: Actor, line: AuditLine, options?: { logChannel?: boolean }): Promise<{ logNote: string }>;
}

/** What the rules object is built from (by the composition root). */
export interface RulesDeps {
  /** The store the rules object alone reads and writes (the composition root hands it over). */
  guildSettings: GuildSettingsStore;
  /** The environment's limits, every server's defaults (USER_RUNS_PER_HOUR and friends). */
  defaultLimits: UsageLimits;
  /** The bot's own step limit, model and the models moderators may choose. */
  channelDefaults: ChannelDefaults;
  /** Builds the tool policy over this object's reader of the settings (it keeps its own last good read per place). */
  toolPolicy(read: (guildId: string) => Promise<GuildSettings>): AllowedTools;
  /** A tool as the policy reads it now (whether it waits for approval by default; an outside tool's fingerprint). */
  policyTool(tool: string): { askByDefault?: boolean; fingerprint?: string } | undefined;
  /** Where the writes post their line: the guild's log channel. */
  logChannel: LogChannelPost;
  /** The clock of audit entries and pins. */
  now: () => Date;
  logger: Pick<Logger, 'warn'>;
}

/** The rules object over the settings store: its reads, its named writes and the audit trail they share. */
export function createRules(deps: RulesDeps): Rules {
  const readSettings = readerOf(deps.guildSettings);
  const trail = createAuditTrail({ guildSettings: deps.guildSettings, now: deps.now, logChannel: deps.logChannel });
  return {
    at: createPlaceRules({ ...deps, read: readSettings, allowedTools: deps.toolPolicy(readSettings) }),
    ...createSettingWrites(trail, deps),
    ...createToolWrites(trail, { read: readSettings, now: deps.now }),
    recordAction: (guildId, actor, line, options) => trail.record(guildId, actor, line, options),
    snapshot: readSettings,
    async auditLog(guildId, filter = {}) {
      const { auditLog } = await readSettings(guildId);
      return auditLog.filter((entry) => (filter.action === undefined || ofAction(entry, filter.action)) && (filter.actorId === undefined || entry.actorId === filter.actorId));
    },
    auditPage: async (guildId, query) => auditPage((await readSettings(guildId)).auditLog, query),
  };
}
