/**
 * A tool that only makes sense where something exists: `search_knowledge` is offered only in a server
 * that has documents (a model offered a search over nothing wastes a step on it). This narrows what the
 * tool policy allows; it never adds a tool the policy left out, and a rule disabling the tool still wins.
 */
import type { Logger } from '../logger.js';
import type { RunScope } from './channel-settings.js';

/** The tools a run in a scope may use right now (the rules' tool policy, in src/discord/rules/rules.ts). */
export type AllowedTools = (scope: RunScope) => Promise<ReadonlySet<string>>;

/**
 * `allowed`, minus `tool` wherever `available(scope)` is false (and outside a server). `available` is
 * asked only when the policy allows the tool, before every step, so it should be cached. If it fails,
 * the tool is not offered (a search that would fail too) and the failure is logged at most once a minute
 * per guild.
 */
export function offerOnlyWhere(
  allowed: AllowedTools,
  tool: string,
  available: (guildId: string) => Promise<boolean>,
  logger: Pick<Logger, 'warn'>,
  clock: () => number = Date.now,
): AllowedTools {
  const lastWarned = new Map<string, number>();
  const without = (names: ReadonlySet<string>) => new Set([...names].filter((name) => name !== tool));

  return async (scope: RunScope) => {
    const names = await allowed(scope);
    if (!names.has(tool)) return names;
    if (!scope.guildId) return without(names);
    try {
      return (await available(scope.guildId)) ? names : without(names);
    } catch (error) {
      const now = clock();
      if (now - (lastWarned.get(scope.guildId) ?? -Infinity) >= 60_000) {
        lastWarned.set(scope.guildId, now);
        logger.warn({ err: error, guildId: scope.guildId, tool }, `could not tell whether ${tool} has anything to work on here; not offering it until that can be read`);
      }
      return without(names);
    }
  };
}
