import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const load = (env: Record<string, string>) => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...env });

function problemsOf(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('governance configuration', () => {
  it('has the issue’s defaults: 20 questions an hour, 2 at once, 200k tokens a member, 2M a server, no DMs, 4,000 characters', () => {
    const { governance } = load({});
    expect(governance.limits).toEqual({ runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000 });
    expect(governance.allowDms).toBe(false);
    expect(governance.questionMaxChars).toBe(4_000);
    expect(governance.prices['gpt-4o-mini']).toEqual({ input: 0.15, output: 0.6 });
  });

  it('reads every variable, with 0 meaning no limit', () => {
    const { governance } = load({
      USER_RUNS_PER_HOUR: '5',
      USER_CONCURRENT_RUNS: '0',
      USER_DAILY_TOKENS: '0',
      GUILD_DAILY_TOKENS: '123456',
      ALLOW_DMS: 'true',
      QUESTION_MAX_CHARS: '500',
      MODEL_PRICES: '{"my-model": {"input": 1, "output": 2}, "gpt-4o-mini": {"input": 0.1, "output": 0.2}}',
    });
    expect(governance.limits).toEqual({ runsPerHour: 5, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 123_456 });
    expect(governance).toMatchObject({ allowDms: true, questionMaxChars: 500 });
    expect(governance.prices['my-model']).toEqual({ input: 1, output: 2 });
    expect(governance.prices['gpt-4o-mini']).toEqual({ input: 0.1, output: 0.2 });
    expect(governance.prices['gpt-4o']).toEqual({ input: 2.5, output: 10 });
  });

  it('reports bad limits and bad MODEL_PRICES together at start-up', () => {
    const problems = problemsOf({ USER_RUNS_PER_HOUR: '-1', USER_CONCURRENT_RUNS: 'two', ALLOW_DMS: 'sometimes', MODEL_PRICES: '{"gpt-4o": {"input": 2.5}', QUESTION_MAX_CHARS: '0' });
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/USER_RUNS_PER_HOUR must be a whole number from 0/);
    expect(problems.join('\n')).toMatch(/MODEL_PRICES is not valid JSON/);
    expect(problemsOf({ MODEL_PRICES: '{"gpt-4o": {"input": "cheap", "output": 1}}' })).toEqual([
      'MODEL_PRICES: gpt-4o must each have "input" and "output" as non-negative numbers (dollars per million tokens).',
    ]);
  });
});
