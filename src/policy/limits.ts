/**
 * Which usage limits apply to a member: the environment's defaults, a server's overrides from
 * `/settings limits`, and exempt roles. A member with an exempt role has no member limits (runs per
 * hour, runs at once, tokens per day); the server's daily token cap still applies to them, because it
 * is what protects the owner's model account. DMs have no server settings: the defaults apply.
 * Also the edits `/settings limits` makes. Pure functions; how limits read for moderators is in
 * src/discord/text/limits-text.ts.
 */
import type { GuildSettings, LimitOverrides } from '../state/guild-settings-schema.js';
import type { EffectiveLimits, LimitName, UsageLimits } from '../state/usage/types.js';

/** The limits in the order commands and messages list them. */
export const LIMIT_NAMES: readonly LimitName[] = ['runsPerHour', 'concurrentRuns', 'userDailyTokens', 'guildDailyTokens'];

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
