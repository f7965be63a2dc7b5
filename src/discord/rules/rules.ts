/**
 * The rules of a place, read in one place: `rules.at(scope)` gives the member's usage limits, the
 * channel's settings (display level, step limit, model, persona), the tools a run may use and whether a
 * tool waits for approval. Pure rule logic stays in `src/policy`; this is where it meets the stored guild
 * settings, and where every fallback for a store that cannot be read is decided, the safe way each time:
 *
 * - limits: not guessed (the read throws, and admission refuses: nothing may spend the owner's account
 *   unchecked);
 * - settings: the bot's own defaults (what a channel shows, how many steps, which model);
 * - tools: the tool policy's last good read for that place, narrowed to tools that reach no network, else
 *   the built-in safe tools (a broken store never switches a tool on);
 * - approvals: a call waits for a person;
 * - memory: off (no memory block, no memory tools), so a place where a moderator turned it off never
 *   gets it back during an outage;
 * - who may schedule questions: unknown (a scheduled run that cannot check its owner's right does not
 *   happen, and its schedule is not paused for it: the store may answer at the next run).
 *
 * Settings and limits are read once per turn (`at` is called when a turn starts); tools and approvals are
 * read again before every step and every call, so a moderator's change applies to a running run.
 *
 * It is also the one door to the stored settings for everything else: commands (and the web console
 * next) show them with `snapshot` and `auditLog`, and change them only through its named writes
 * (setting-writes.ts, tool-writes.ts), each of which audits itself (audit-trail.ts). The tool policy is
 * in tool-policy.ts, handed this object's reader.
 */
import type { Logger } from '../../logger.js';
import {
  answerMode,
  approvalMode,
  channelSettings,
  defaultChannelSettings,
  effectiveLimits,
  memorySettings,
  MEMORY_UNREADABLE,
  scheduleAccess,
  type AllowedTools,
  type AnswerMode,
  type ApprovalCall,
  type ApprovalMode,
  type ChannelDefaults,
  type ChannelSettings,
  type MemorySettings,
  type RunScope,
  type ScheduleAccess,
} from '../../policy/index.js';
import type { AuditEntry, EffectiveLimits, GuildSettings, GuildSettingsStore, UsageLimits } from '../../state/index.js';
import { createAuditTrail, type Actor, type AuditLine, type LogChannelPost } from './audit-trail.js';
import { createSettingWrites, type SettingWrites } from './setting-writes.js';
import { createToolWrites, type ToolWrites } from './tool-writes.js';

/** The rules where one member asks, in one channel. */
export interface PlaceRules {
  /** The member's usage limits here: the server's settings over the defaults. Throws when they cannot be read. */
  limits(): Promise<EffectiveLimits>;
  /** The channel's settings; the defaults if they cannot be read. */
  settings(): Promise<ChannelSettings>;
  /** The tools a run may use here now. */
  allowedTools(): Promise<ReadonlySet<string>>;
  /**
   * Whether calls to `tool` wait for a person here now; `ask` if that cannot be read, and for a call the
   * tool itself says must wait (`call.required`).
   */
  approvalMode(tool: string, call?: ApprovalCall): Promise<ApprovalMode>;
  /** Whether member memory and past-thread search are on here; both off if that cannot be read. */
  memory(): Promise<MemorySettings>;
  /**
   * Whether the bot answers without `/ask` here: mentions (`mention`), every new message or post
   * (`always`), or not at all (`off`); `off` if that cannot be read (a broken store never starts the bot
   * talking where a moderator silenced it).
   */
  answers(): Promise<AnswerMode>;
  /** Who may own scheduled questions in this server (`/settings schedules`); undefined if that cannot be read. */
  scheduleAccess(): Promise<ScheduleAccess | undefined>;
}

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
  /**
   * Record an action done outside the settings (a document added, a schedule paused, an approval): its
   * audit entry, then its line in the log channel unless `logChannel` is false (an export is only in the
   * audit log). Rejects when the entry cannot be saved.
   */
  recordAction(guildId: string, actor: Actor, line: AuditLine, options?: { logChannel?: boolean }): Promise<{ logNote: string }>;
}

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

/** An entry is of `action` when its action is that one or starts with it and a dot. */
const ofAction = (entry: AuditEntry, action: string) => entry.action === action || entry.action.startsWith(`${action}.`);

export function createRules(deps: RulesDeps): Rules {
  const readSettings = (guildId: string) => deps.guildSettings.get(guildId);
  const allowedTools = deps.toolPolicy(readSettings);
  const trail = createAuditTrail({ guildSettings: deps.guildSettings, now: deps.now, logChannel: deps.logChannel });
  return {
    ...createSettingWrites(trail, deps),
    ...createToolWrites(trail, { read: readSettings, now: deps.now }),
    recordAction: (guildId, actor, line, options) => trail.record(guildId, actor, line, options),
    snapshot: readSettings,
    async auditLog(guildId, filter = {}) {
      const { auditLog } = await readSettings(guildId);
      return auditLog.filter((entry) => (filter.action === undefined || ofAction(entry, filter.action)) && (filter.actorId === undefined || entry.actorId === filter.actorId));
    },
    at(scope) {
      const { guildId } = scope;
      // One read of the guild's settings serves the turn's limits and settings.
      let stored: ReturnType<RulesDeps['guildSettings']['get']> | undefined;
      const read = (id: string) => (stored ??= deps.guildSettings.get(id));
      return {
        async limits() {
          if (!guildId) return effectiveLimits(deps.defaultLimits, undefined, []);
          return effectiveLimits(deps.defaultLimits, await read(guildId), scope.roleIds);
        },
        async settings() {
          if (!guildId) return defaultChannelSettings(deps.channelDefaults);
          try {
            return channelSettings(await read(guildId), scope, deps.channelDefaults);
          } catch (error) {
            deps.logger.warn({ err: error, guildId }, 'could not read guild settings; using defaults');
            return defaultChannelSettings(deps.channelDefaults);
          }
        },
        allowedTools: () => allowedTools(scope),
        async approvalMode(tool, call) {
          if (call?.required) return 'ask';
          if (!guildId) return 'auto';
          try {
            // Read afresh at each call: a moderator may change it while the run goes on.
            return approvalMode(await deps.guildSettings.get(guildId), scope, { name: tool, ...deps.policyTool(tool) }, call).mode;
          } catch (error) {
            deps.logger.warn({ err: error, guildId, tool }, 'could not read the approval rules; the call waits for approval');
            return 'ask';
          }
        },
        async memory() {
          // Memory belongs to a server's members: none in DMs.
          if (!guildId) return MEMORY_UNREADABLE;
          try {
            return memorySettings(await read(guildId), scope);
          } catch (error) {
            deps.logger.warn({ err: error, guildId }, 'could not read guild settings; memory is off for this turn');
            return MEMORY_UNREADABLE;
          }
        },
        async answers() {
          // A DM is always a conversation with the bot (when DMs are allowed at all).
          if (!guildId) return 'always';
          try {
            return answerMode(await read(guildId), scope).mode;
          } catch (error) {
            deps.logger.warn({ err: error, guildId }, 'could not read where the bot answers; not answering messages there until storage recovers');
            return 'off';
          }
        },
        async scheduleAccess() {
          if (!guildId) return 'off';
          try {
            return scheduleAccess(await read(guildId));
          } catch (error) {
            deps.logger.warn({ err: error, guildId }, 'could not read who may schedule questions');
            return undefined;
          }
        },
      };
    },
  };
}

/** The tools every one of `scopes`' members may use (one member: theirs), read afresh at each call (the engine asks at each step). */
export function allowedForAll(rules: Pick<Rules, 'at'>, scopes: readonly RunScope[]): () => Promise<ReadonlySet<string>> {
  const distinct = [...new Map(scopes.map((s) => [s.userId, s])).values()];
  return async () => {
    const sets = await Promise.all(distinct.map((scope) => rules.at(scope).allowedTools()));
    const [first, ...rest] = sets;
    return new Set([...(first ?? [])].filter((tool) => rest.every((set) => set.has(tool))));
  };
}
