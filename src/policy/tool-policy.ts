/**
 * The `allowedTools(scope)` function for BotContext: reads the guild's settings on every call (the
 * engine asks before every step, so a moderator's change applies on the next step of a running run)
 * and resolves them with `resolveToolAccess`.
 */
import type { RunScope } from './channel-settings.js';
import type { Logger } from '../logger.js';
import type { GuildSettingsStore } from '../state/index.js';
import { enabledToolNames, resolveToolAccess, safeToolNames, type PolicyTool } from './resolve-access.js';

/** What BotContext calls: the tools a run in this scope may use right now. */
export type AllowedTools = (scope: RunScope) => Promise<ReadonlySet<string>>;

/**
 * Build the policy over a settings store and the toolbox. If the settings cannot be read, a run gets
 * only tools that were allowed at the last successful read for that scope and reach no network: a broken
 * store must never switch a tool on, and a tool a moderator turned off stays off. With no earlier read,
 * that is the built-in safe defaults. The failure is logged to `logger` at most once a minute per guild,
 * since the engine asks before every step.
 */
export function createToolPolicy(
  store: Pick<GuildSettingsStore, 'get'>,
  tools: readonly PolicyTool[],
  logger: Pick<Logger, 'warn'>,
  clock: () => number = Date.now,
): AllowedTools {
  const safeDefaults: ReadonlySet<string> = new Set(safeToolNames(tools));
  // Outside a guild there are no rules: the built-in defaults are the whole policy.
  const noRules = enabledToolNames(resolveToolAccess({ toolRules: [] }, { channelId: '', categoryId: null, roleIds: [] }, tools));
  const lastGood = new Map<string, ReadonlySet<string>>();
  const lastWarned = new Map<string, number>();
  const scopeKey = (scope: RunScope) => `${scope.guildId}:${scope.channelId}:${scope.categoryId}:${[...scope.roleIds].sort().join(',')}`;

  return async (scope) => {
    if (!scope.guildId) return noRules;
    const key = scopeKey(scope);
    let settings;
    try {
      settings = await store.get(scope.guildId);
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
    const allowed = enabledToolNames(resolveToolAccess(settings, scope, tools));
    lastGood.set(key, allowed);
    return allowed;
  };
}
