import { describe, expect, it } from 'vitest';
import { describeLimitChange, describeServerLimits } from '../../src/discord/text/limits-text.js';
import { withExemptRole, withLimitChange } from '../../src/policy/index.js';
import { defaultGuildSettings } from '../../src/state/guild-settings-schema.js';

const DEFAULTS = { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000 };

describe('limits text', () => {
  it('describes a change for the audit log and the server’s limits for /settings limits show', () => {
    expect(describeLimitChange({ runsPerHour: 5, userDailyTokens: 0, concurrentRuns: null }, DEFAULTS)).toBe(
      'set questions per member per hour to 5 questions; reset questions per member at once to the default (2 questions); set model tokens per member per day to no limit',
    );
    const settings = withExemptRole(withLimitChange(defaultGuildSettings(), { guildDailyTokens: 1_000_000 }), '42', true);
    expect(describeServerLimits(DEFAULTS, settings)).toEqual([
      '• questions per member per hour: **20 questions** (default, from USER_RUNS_PER_HOUR)',
      '• questions per member at once: **2 questions** (default, from USER_CONCURRENT_RUNS)',
      '• model tokens per member per day: **200,000 tokens** (default, from USER_DAILY_TOKENS)',
      '• model tokens for the whole server per day: **1,000,000 tokens** (set here (default 2,000,000 tokens))',
      "• exempt from member limits: <@&42> (the server's daily tokens still apply to them)",
    ]);
  });
});
