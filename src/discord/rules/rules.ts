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
 * - who may schedule questions: unknown (a scheduled run that cannot check its owner's right does not
 *   happen, and its schedule is not paused for it: the store may answer at the next run).
 *
 * Settings and limits are read once per turn (`at` is called when a turn starts); tools and approvals are
 * read again before every step and every call, so a moderator's change applies to a running run.
 */
import type { Logger } from '../../logger.js';
import {
  approvalMode,
  channelSettings,
  defaultChannelSettings,
  effectiveLimits,
  scheduleAccess,
  type AllowedTools,
  type ApprovalMode,
  type ChannelDefaults,
  type ChannelSettings,
  type RunScope,
  type ScheduleAccess,
} from '../../policy/index.js';
import type { EffectiveLimits, GuildSettingsStore, UsageLimits } from '../../state/index.js';

/** The rules where one member asks, in one channel. */
export interface PlaceRules {
  /** The member's usage limits here: the server's settings over the defaults. Throws when they cannot be read. */
  limits(): Promise<EffectiveLimits>;
  /** The channel's settings; the defaults if they cannot be read. */
  settings(): Promise<ChannelSettings>;
  /** The tools a run may use here now. */
  allowedTools(): Promise<ReadonlySet<string>>;
  /** Whether calls to `tool` wait for a person here now; `ask` if that cannot be read. */
  approvalMode(tool: string): Promise<ApprovalMode>;
  /** Who may own scheduled questions in this server (`/settings schedules`); undefined if that cannot be read. */
  scheduleAccess(): Promise<ScheduleAccess | undefined>;
}

export interface Rules {
  at(scope: RunScope): PlaceRules;
}

export interface RulesDeps {
  guildSettings: Pick<GuildSettingsStore, 'get'>;
  /** The environment's limits, every server's defaults (USER_RUNS_PER_HOUR and friends). */
  defaultLimits: UsageLimits;
  /** The bot's own step limit, model and the models moderators may choose. */
  channelDefaults: ChannelDefaults;
  /** The tool policy (it keeps its own last good read per place). */
  allowedTools: AllowedTools;
  /** Whether a tool waits for approval unless a moderator says otherwise (outside tools not marked read-only). */
  asksByDefault(tool: string): boolean;
  logger: Pick<Logger, 'warn'>;
}

export function createRules(deps: RulesDeps): Rules {
  return {
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
        allowedTools: () => deps.allowedTools(scope),
        async approvalMode(tool) {
          if (!guildId) return 'auto';
          try {
            // Read afresh at each call: a moderator may change it while the run goes on.
            return approvalMode(await deps.guildSettings.get(guildId), scope, { name: tool, askByDefault: deps.asksByDefault(tool) }).mode;
          } catch (error) {
            deps.logger.warn({ err: error, guildId, tool }, 'could not read the approval rules; the call waits for approval');
            return 'ask';
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
