/**
 * Which usage limits apply to a member: the environment's defaults, a server's overrides from
 * `/settings limits`, and exempt roles. A member with an exempt role has no member limits (runs per
 * hour, runs at once, tokens per day); the server's daily token cap still applies to them, because it
 * is what protects the owner's model account. DMs have no server settings: the defaults apply.
 * Also the edits `/settings limits` makes and the sentences its audit entries use. Pure functions.
 */
import type { GuildSettings, LimitOverrides } from '../state/guild-settings-schema.js';
import type { EffectiveLimits, LimitName, UsageLimits } from '../state/usage/types.js';

/** The limits in the order commands and messages list them. */
export const LIMIT_NAMES: readonly LimitName[] = ['runsPerHour', 'concurrentRuns', 'userDailyTokens', 'guildDailyTokens'];

/** How each limit reads in a sentence, and its environment variable. */
export const LIMIT_INFO: Readonly<Record<LimitName, { label: string; unit: string; env: string; option: string }>> = {
  runsPerHour: { label: 'questions per member per hour', unit: 'questions', env: 'USER_RUNS_PER_HOUR', option: 'runs-per-hour' },
  concurrentRuns: { label: 'questions per member at once', unit: 'questions', env: 'USER_CONCURRENT_RUNS', option: 'concurrent-runs' },
  userDailyTokens: { label: 'model tokens per member per day', unit: 'tokens', env: 'USER_DAILY_TOKENS', option: 'member-daily-tokens' },
  guildDailyTokens: { label: 'model tokens for the whole server per day', unit: 'tokens', env: 'GUILD_DAILY_TOKENS', option: 'server-daily-tokens' },
};

/** Part of the guild settings the limits read. */
export type LimitSettings = Pick<GuildSettings, 'limits' | 'limitExemptRoles'>;

/** The server's limits: defaults with its overrides on top (0 = no limit). */
export function serverLimits(defaults: UsageLimits, settings: LimitSettings | undefined): UsageLimits {
  const overrides = settings?.limits ?? {};
  const out = { ...defaults };
  for (const name of LIMIT_NAMES) {
    const value = overrides[name];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) out[name] = value;
  }
  return out;
}

/**
 * The limits for a member with `roleIds` (pass [] in DMs, with `settings` undefined). With an exempt
 * role, the member limits become 0 (none) and `exempt` is true; the server cap stays.
 */
export function effectiveLimits(defaults: UsageLimits, settings: LimitSettings | undefined, roleIds: readonly string[]): EffectiveLimits {
  const limits = serverLimits(defaults, settings);
  const exemptRoles = new Set(settings?.limitExemptRoles ?? []);
  const exempt = roleIds.some((id) => exemptRoles.has(id));
  if (!exempt) return { ...limits, exempt };
  return { runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: limits.guildDailyTokens, exempt };
}

/** A `/settings limits set` change: a number sets an override, null goes back to the default. */
export type LimitChange = Partial<Record<LimitName, number | null>>;

/** The settings with `change` applied; an empty overrides object is dropped. */
export function withLimitChange(settings: GuildSettings, change: LimitChange): GuildSettings {
  const limits: LimitOverrides = { ...(settings.limits ?? {}) };
  for (const name of LIMIT_NAMES) {
    if (!(name in change)) continue;
    const value = change[name];
    if (value === null || value === undefined) delete limits[name];
    else limits[name] = value;
  }
  const { limits: _old, ...rest } = settings;
  return Object.keys(limits).length > 0 ? { ...rest, limits } : rest;
}

/** The settings with `roleId` made exempt (or no longer exempt). */
export function withExemptRole(settings: GuildSettings, roleId: string, exempt: boolean): GuildSettings {
  const roles = (settings.limitExemptRoles ?? []).filter((id) => id !== roleId);
  if (exempt) roles.push(roleId);
  const { limitExemptRoles: _old, ...rest } = settings;
  return roles.length > 0 ? { ...rest, limitExemptRoles: roles } : rest;
}

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
