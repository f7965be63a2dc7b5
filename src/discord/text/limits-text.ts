/**
 * How the usage limits read for moderators: each limit's words and `/settings limits` option, a value as
 * words, the audit sentence for a change, and `/settings limits show`'s lines (exempt roles as Discord
 * role mentions). Which limits apply is pure policy (src/policy/limits.ts); this only writes it down.
 */
import { LIMIT_NAMES, serverLimits, type LimitChange, type LimitSettings } from '../../policy/index.js';
import type { LimitName, UsageLimits } from '../../state/usage/types.js';

/** How each limit reads in a sentence, its environment variable, and its `/settings limits set` option. */
export const LIMIT_INFO: Readonly<Record<LimitName, { label: string; unit: string; env: string; option: string }>> = {
  runsPerHour: { label: 'questions per member per hour', unit: 'questions', env: 'USER_RUNS_PER_HOUR', option: 'runs-per-hour' },
  concurrentRuns: { label: 'questions per member at once', unit: 'questions', env: 'USER_CONCURRENT_RUNS', option: 'concurrent-runs' },
  userDailyTokens: { label: 'model tokens per member per day', unit: 'tokens', env: 'USER_DAILY_TOKENS', option: 'member-daily-tokens' },
  guildDailyTokens: { label: 'model tokens for the whole server per day', unit: 'tokens', env: 'GUILD_DAILY_TOKENS', option: 'server-daily-tokens' },
};

/** A limit's value as words: "20 questions", "no limit". */
export function describeValue(name: LimitName, value: number): string {
  return value === 0 ? 'no limit' : `${value.toLocaleString('en-US')} ${LIMIT_INFO[name].unit}`;
}

/** The audit sentence for a change, e.g. "set questions per member per hour to 5; reset … to the default (20 questions)". */
export function describeLimitChange(change: LimitChange, defaults: UsageLimits): string {
  const parts: string[] = [];
  for (const name of LIMIT_NAMES) {
    if (!(name in change)) continue;
    const value = change[name];
    parts.push(
      value === null || value === undefined
        ? `reset ${LIMIT_INFO[name].label} to the default (${describeValue(name, defaults[name])})`
        : `set ${LIMIT_INFO[name].label} to ${describeValue(name, value)}`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'changed no limit';
}

/** The server's limits as lines for `/settings limits show`: value, and whether it is the default. */
export function describeServerLimits(defaults: UsageLimits, settings: LimitSettings | undefined): string[] {
  const limits = serverLimits(defaults, settings);
  const lines = LIMIT_NAMES.map((name) => {
    const overridden = settings?.limits?.[name] !== undefined;
    const origin = overridden ? `set here (default ${describeValue(name, defaults[name])})` : `default, from ${LIMIT_INFO[name].env}`;
    return `• ${LIMIT_INFO[name].label}: **${describeValue(name, limits[name])}** (${origin})`;
  });
  const roles = settings?.limitExemptRoles ?? [];
  lines.push(
    roles.length > 0
      ? `• exempt from member limits: ${roles.map((id) => `<@&${id}>`).join(', ')} (the server's daily tokens still apply to them)`
      : '• no exempt roles',
  );
  return lines;
}
