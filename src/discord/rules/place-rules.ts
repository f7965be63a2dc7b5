/**
 * The rules of a place, read in one place: `rules.at(scope)` gives the member's usage limits, the
 * channel's settings (display level, step limit, model, persona), the tools a run may use (the tool
 * policy, below) and whether a tool waits for approval. Pure rule logic stays in `src/policy`; this is
 * where it meets the stored guild settings (through the rules object's reader), and where every fallback
 * for a store that cannot be read is decided, the safe way each time:
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
 * read again before every step and every call, so a moderator's change applies to a running run. What a
 * question runs through is kept to this one file (test/discord/ask-path.test.ts counts them).
 */
import type { Logger } from '../../logger.js';
import {
  answerMode,
  approvalMode,
  channelSettings,
  defaultChannelSettings,
  effectiveLimits,
  enabledToolNames,
  memorySettings,
  MEMORY_UNREADABLE,
  pinMismatch,
  resolveToolAccess,
  safeToolNames,
  scheduleAccess,
  skillAccess,
  withoutMemoryOff,
  type AllowedTools,
  type AnswerMode,
  type ApprovalCall,
  type ApprovalMode,
  type ChannelDefaults,
  type ChannelSettings,
  type MemorySettings,
  type PolicyTool,
  type RunScope,
  type ScheduleAccess,
  type SkillAccess,
} from '../../policy/index.js';
import type { EffectiveLimits, GuildSettings, GuildSettingsStore, UsageLimits } from '../../state/index.js';

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
  /** Who may write skills in this server (`/settings skills`; `off`: none runs); undefined if that cannot be read. */
  skillAccess(): Promise<SkillAccess | undefined>;
}

/** The rules object's reader of a guild's settings (made here, where the reads of a question run). */
export function readerOf(store: Pick<GuildSettingsStore, 'get'>): (guildId: string) => Promise<GuildSettings> {
  return (guildId) => store.get(guildId);
}

/** What the rules of a place read: the settings (through the reader), the defaults, the tool policy. */
export interface PlaceRulesDeps {
  /** The rules object's reader of a guild's settings. */
  read(guildId: string): Promise<GuildSettings>;
  defaultLimits: UsageLimits;
  channelDefaults: ChannelDefaults;
  allowedTools: AllowedTools;
  policyTool(tool: string): { askByDefault?: boolean; fingerprint?: string } | undefined;
  logger: Pick<Logger, 'warn'>;
}

/** `at(scope)`: the rules where one member asks, over the rules object's reader. */
export function createPlaceRules(deps: PlaceRulesDeps): (scope: RunScope) => PlaceRules {
  return (scope) => {
    const { guildId } = scope;
    // One read of the guild's settings serves the turn's limits and settings.
    let stored: Promise<GuildSettings> | undefined;
    const read = (id: string) => (stored ??= deps.read(id));
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
          return approvalMode(await deps.read(guildId), scope, { name: tool, ...deps.policyTool(tool) }, call).mode;
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
      async skillAccess() {
        if (!guildId) return 'off';
        try {
          return skillAccess(await read(guildId));
        } catch (error) {
          deps.logger.warn({ err: error, guildId }, 'could not read who may write skills');
          return undefined;
        }
      },
    };
  };
}

/** The tools every one of `scopes`' members may use (one member: theirs), read afresh at each call (the engine asks at each step). */
export function allowedForAll(rules: { at(scope: RunScope): Pick<PlaceRules, 'allowedTools'> }, scopes: readonly RunScope[]): () => Promise<ReadonlySet<string>> {
  const distinct = [...new Map(scopes.map((s) => [s.userId, s])).values()];
  return async () => {
    const sets = await Promise.all(distinct.map((scope) => rules.at(scope).allowedTools()));
    const [first, ...rest] = sets;
    return new Set([...(first ?? [])].filter((tool) => rest.every((set) => set.has(tool))));
  };
}

/*
 * The tools part of the rules: `createToolPolicy` reads the guild's settings on every call (the engine
 * asks before every step, so a moderator's change applies on the next step of a running run) and
 * resolves them with `resolveToolAccess`. A tool whose fingerprint is not the one pinned when it was
 * enabled (an MCP server changed it) is left out, and `onSuspended` is told once per guild and change;
 * so are the memory tools where a moderator turned that memory off.
 */

/** A tool held back in a guild because it changed since a moderator enabled it. */
export interface SuspendedTool {
  guildId: string;
  tool: string;
  /** Where moderators read about changes (the guild's log channel), if set. */
  logChannelId?: string;
}

/**
 * Build the policy over a reader of the guild settings and the toolbox. If the settings cannot be read, a run gets
 * only tools that were allowed at the last successful read for that scope and reach no network: a broken
 * store must never switch a tool on, and a tool a moderator turned off stays off. With no earlier read,
 * that is the built-in safe defaults. The failure is logged to `logger` at most once a minute per guild,
 * since the engine asks before every step.
 */
export function createToolPolicy(
  /** Reads a guild's settings (the rules object's reader). */
  read: (guildId: string) => Promise<GuildSettings>,
  toolList: readonly PolicyTool[] | (() => readonly PolicyTool[]),
  logger: Pick<Logger, 'warn'>,
  clock: () => number = Date.now,
  onSuspended?: (suspended: SuspendedTool) => void,
): AllowedTools {
  // Tools from MCP servers come and go: read the list on every call when it is a function.
  const toolsNow = typeof toolList === 'function' ? toolList : () => toolList;
  // Tools that come and go are never among the safe defaults (they are off by default), so these hold.
  const tools = toolsNow();
  // Memory tools are not among them: with nothing read, whether memory is on here is not known.
  const safeDefaults: ReadonlySet<string> = withoutMemoryOff(new Set(safeToolNames(tools)), MEMORY_UNREADABLE);
  // Outside a guild there are no rules: the built-in defaults are the whole policy (and no member memory).
  const noRules = withoutMemoryOff(enabledToolNames(resolveToolAccess({ toolRules: [] }, { channelId: '', categoryId: null, roleIds: [] }, tools)), MEMORY_UNREADABLE);
  /** `guild:tool` → the fingerprint already reported as suspended, so the log channel hears of a change once. */
  const reported = new Map<string, string>();
  const lastGood = new Map<string, ReadonlySet<string>>();
  const lastWarned = new Map<string, number>();
  const scopeKey = (scope: RunScope) => `${scope.guildId}:${scope.channelId}:${scope.categoryId}:${[...scope.roleIds].sort().join(',')}`;

  return async (scope) => {
    if (!scope.guildId) return noRules;
    const key = scopeKey(scope);
    let settings;
    try {
      settings = await read(scope.guildId);
    } catch (error) {
      const previous = lastGood.get(key);
      const fallback = previous ? new Set([...previous].filter((name) => safeDefaults.has(name))) : safeDefaults;
      const now = clock();
      if (now - (lastWarned.get(scope.guildId) ?? -Infinity) >= 60_000) {
        lastWarned.set(scope.guildId, now);
        logger.warn(
          { err: error, guildId: scope.guildId, channelId: scope.channelId, fallback: [...fallback] },
          'could not read the tool rules; runs only get the built-in safe tools (no network tools) that were allowed before, until storage recovers',
        );
      }
      return fallback;
    }
    const current = toolsNow();
    const allowed = enabledToolNames(resolveToolAccess(settings, scope, current));
    for (const tool of current) {
      if (!allowed.has(tool.name) || !pinMismatch(settings, tool)) continue;
      allowed.delete(tool.name);
      const seen = `${scope.guildId}:${tool.name}`;
      if (reported.get(seen) === tool.fingerprint) continue;
      reported.set(seen, tool.fingerprint!);
      onSuspended?.({ guildId: scope.guildId, tool: tool.name, logChannelId: settings.logChannelId });
    }
    // Memory a moderator turned off here takes its tools with it (`/settings memory`).
    const here = withoutMemoryOff(allowed, memorySettings(settings, scope));
    lastGood.set(key, here);
    return here;
  };
}
