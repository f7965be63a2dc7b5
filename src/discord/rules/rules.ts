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
 */
import { PermissionFlagsBits, type Client, type Guild, type GuildMember } from 'discord.js';
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
import type { EffectiveLimits, GuildSettingsStore, UsageLimits } from '../../state/index.js';

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

export interface Rules {
  at(scope: RunScope): PlaceRules;
  /** The settings moderators change (`/tools`, `/settings`, `/kb` rules) and their audit log: for the commands that show and edit them. */
  readonly store: GuildSettingsStore;
}

export interface RulesDeps {
  guildSettings: GuildSettingsStore;
  /** The environment's limits, every server's defaults (USER_RUNS_PER_HOUR and friends). */
  defaultLimits: UsageLimits;
  /** The bot's own step limit, model and the models moderators may choose. */
  channelDefaults: ChannelDefaults;
  /** The tool policy (it keeps its own last good read per place). */
  allowedTools: AllowedTools;
  /** A tool as the policy reads it now (whether it waits for approval by default; an outside tool's fingerprint). */
  policyTool(tool: string): { askByDefault?: boolean; fingerprint?: string } | undefined;
  logger: Pick<Logger, 'warn'>;
}

export function createRules(deps: RulesDeps): Rules {
  return {
    store: deps.guildSettings,
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

/*
 * Who may see a channel, for what was said in it: a knowledge passage taken from a channel's message is
 * shown only to members with View Channel there. Read from discord.js's caches, with one fetch for a
 * member or channel not cached yet; anything that cannot be read counts as "cannot view".
 */

/** Whether a member may view a channel; what `search_knowledge` and `/kb search` ask per channel. */
export type ChannelViewer = (channelId: string) => Promise<boolean>;

/** The channel viewer of `userId` in `guild` (no guild: nothing channel-bound is visible). */
export function channelViewer(guild: Guild | null | undefined, userId: string): ChannelViewer {
  let member: Promise<GuildMember | undefined> | undefined;
  const memberOf = (g: Guild) => (member ??= g.members.fetch(userId).catch(() => undefined));
  return async (channelId) => {
    if (!guild) return false;
    const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
    const who = guild.members.cache.get(userId) ?? (await memberOf(guild));
    if (!channel || !who) return false;
    return channel.permissionsFor(who).has(PermissionFlagsBits.ViewChannel);
  };
}


/** Whether @everyone lacks View Channel in a channel: only some members can read it. Unknown: true. */
export async function isRestrictedChannel(guild: Guild, channelId: string): Promise<boolean> {
  const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
  if (!channel) return true;
  return !channel.permissionsFor(guild.roles.everyone).has(PermissionFlagsBits.ViewChannel);
}

/**
 * What a run may quote from a channel: every member it answers can view that channel, and a channel only
 * some members can read is quoted only in its own threads. Otherwise a moderator's question in a public
 * thread would put a mods-only passage where everyone reads the answer.
 */
export function runAudienceViewer(client: Client, guildId: string | null | undefined, askerIds: readonly string[], postedIn: string): ChannelViewer {
  const guild = guildId ? client.guilds.cache.get(guildId) : undefined;
  const viewers = askerIds.map((id) => channelViewer(guild, id));
  return async (channelId) => {
    if (!guild) return false;
    for (const canView of viewers) if (!(await canView(channelId))) return false;
    return channelId === postedIn || !(await isRestrictedChannel(guild, channelId));
  };
}
