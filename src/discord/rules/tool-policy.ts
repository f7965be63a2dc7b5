/**
 * The tools part of the rules: `createToolPolicy` reads the guild's settings on every call (the engine
 * asks before every step, so a moderator's change applies on the next step of a running run) and
 * resolves them with `resolveToolAccess`. A tool whose fingerprint is not the one pinned when it was
 * enabled (an MCP server changed it) is left out, and `onSuspended` is told once per guild and change;
 * so are the memory tools where a moderator turned that memory off. It reads through the rules object's
 * reader (`RulesDeps.toolPolicy` is handed it), never the store itself.
 */
import type { Logger } from '../../logger.js';
import {
  enabledToolNames,
  memorySettings,
  MEMORY_UNREADABLE,
  pinMismatch,
  resolveToolAccess,
  safeToolNames,
  withoutMemoryOff,
  type AllowedTools,
  type PolicyTool,
  type RunScope,
} from '../../policy/index.js';
import type { GuildSettings } from '../../state/index.js';

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
