/**
 * The `allowedTools(scope)` function for BotContext: reads the guild's settings on every call (the
 * engine asks before every step, so a moderator's change applies on the next step of a running run)
 * and resolves them with `resolveToolAccess`.
 */
import type { RunScope } from '../discord/context.js';
import { createLogger, type Logger } from '../logger.js';
import type { GuildSettingsStore } from '../state/index.js';
import { enabledToolNames, resolveToolAccess, type PolicyTool } from './resolve-access.js';

/** What BotContext calls: the tools a run in this scope may use right now. */
export type AllowedTools = (scope: RunScope) => Promise<ReadonlySet<string>>;

/**
 * Build the policy over a settings store and the toolbox. If the settings cannot be read, the run gets
 * the built-in defaults without any network tool (a broken store must never switch anything on, and a
 * server rule turning a safe tool off cannot be honoured either way), and the failure is logged to
 * `logger` (default: a warn-level logger on stdout).
 */
export function createToolPolicy(
  store: Pick<GuildSettingsStore, 'get'>,
  tools: readonly PolicyTool[],
  logger: Pick<Logger, 'warn'> = createLogger('warn'),
): AllowedTools {
  const safeDefaults: ReadonlySet<string> = new Set(tools.filter((t) => t.network !== true).map((t) => t.name));
  // Outside a guild there are no rules: the built-in defaults are the whole policy.
  const noRules = enabledToolNames(resolveToolAccess({ toolRules: [] }, { channelId: '', categoryId: null, roleIds: [] }, tools));

  return async (scope) => {
    if (!scope.guildId) return noRules;
    let settings;
    try {
      settings = await store.get(scope.guildId);
    } catch (error) {
      logger.warn(
        { err: error, guildId: scope.guildId, channelId: scope.channelId, fallback: [...safeDefaults] },
        'could not read the tool rules; this step only gets the built-in safe tools (no network tools) until storage recovers',
      );
      return safeDefaults;
    }
    return enabledToolNames(resolveToolAccess(settings, scope, tools));
  };
}
