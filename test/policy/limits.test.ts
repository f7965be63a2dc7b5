import { describe, expect, it } from 'vitest';
import { effectiveLimits, serverLimits, withExemptRole, withLimitChange } from '../../src/policy/limits.js';
import { GuildSettingsSchema, defaultGuildSettings } from '../../src/state/guild-settings-schema.js';

const DEFAULTS = { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000 };

describe('effective limits', () => {
  it('uses the environment defaults for a server nobody configured, and in DMs', () => {
    expect(effectiveLimits(DEFAULTS, defaultGuildSettings(), ['R1'])).toEqual({ ...DEFAULTS, exempt: false });
    expect(effectiveLimits(DEFAULTS, undefined, [])).toEqual({ ...DEFAULTS, exempt: false });
  });

  it('applies a server’s overrides, including 0 for no limit, and leaves the rest at the defaults', () => {
    const settings = withLimitChange(defaultGuildSettings(), { runsPerHour: 5, userDailyTokens: 0 });
    expect(serverLimits(DEFAULTS, settings)).toEqual({ ...DEFAULTS, runsPerHour: 5, userDailyTokens: 0 });
  });

  it('lifts every member limit for an exempt role but keeps the server’s daily cap', () => {
    const settings = withExemptRole(withLimitChange(defaultGuildSettings(), { guildDailyTokens: 50_000 }), 'VIP', true);
    expect(effectiveLimits(DEFAULTS, settings, ['R1', 'VIP'])).toEqual({ runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 50_000, exempt: true });
    expect(effectiveLimits(DEFAULTS, settings, ['R1'])).toMatchObject({ exempt: false, runsPerHour: 20 });
  });

  it('ignores an override a newer or damaged record holds in the wrong shape', () => {
    const settings = GuildSettingsSchema.parse({});
    (settings as Record<string, unknown>).limits = { runsPerHour: -3, concurrentRuns: 1.5, userDailyTokens: 7 };
    expect(serverLimits(DEFAULTS, settings)).toEqual({ ...DEFAULTS, userDailyTokens: 7 });
  });
});

describe('limit edits', () => {
  it('sets, resets and drops overrides, keeping the record free of empty objects', () => {
    let settings = withLimitChange(defaultGuildSettings(), { runsPerHour: 5, concurrentRuns: 1 });
    expect(settings.limits).toEqual({ runsPerHour: 5, concurrentRuns: 1 });
    settings = withLimitChange(settings, { runsPerHour: null });
    expect(settings.limits).toEqual({ concurrentRuns: 1 });
    settings = withLimitChange(settings, { concurrentRuns: null });
    expect(settings).not.toHaveProperty('limits');
    // What is saved passes the schema (the store validates every write).
    expect(() => GuildSettingsSchema.parse(withLimitChange(settings, { guildDailyTokens: 0 }))).not.toThrow();
  });

  it('adds and removes exempt roles without duplicates', () => {
    let settings = withExemptRole(defaultGuildSettings(), 'A', true);
    settings = withExemptRole(settings, 'A', true);
    settings = withExemptRole(settings, 'B', true);
    expect(settings.limitExemptRoles).toEqual(['A', 'B']);
    settings = withExemptRole(withExemptRole(settings, 'A', false), 'B', false);
    expect(settings).not.toHaveProperty('limitExemptRoles');
  });
});
