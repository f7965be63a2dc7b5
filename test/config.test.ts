import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { readFileSync } from 'node:fs';

const load = (env: Record<string, string>, needDiscord = true) => loadConfig({ needDiscord, dotenvDir: false }, env);

function problemsOf(env: Record<string, string>, needDiscord = true): string[] {
  try {
    load(env, needDiscord);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('names every missing variable at once, with where to get it', () => {
    const problems = problemsOf({});
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/OPENAI_API_KEY is missing.*API keys/);
    expect(problems[1]).toMatch(/DISCORD_TOKEN is missing.*Developer Portal/);
  });

  it('reports every invalid value together and never prints a secret', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: 'super-secret-token',
      OPENAI_API_KEY: 'sk-secret',
      AGENT_MAX_STEPS: 'many',
      AGENT_PROTOCOL: 'smoke-signals',
      OPENAI_BASE_URL: 'ftp://nope',
      DISCORD_GUILD_ID: '12',
      DISCORD_MESSAGE_CONTENT: 'maybe',
      KEYV_URL: 'mongodb://x',
    });
    expect(problems).toHaveLength(6);
    expect(problems.join('\n')).not.toMatch(/super-secret-token|sk-secret/);
  });

  it('needs no Discord token for the terminal runner, and no API key for a local server', () => {
    const config = load({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, false);
    expect(config.discord).toBeUndefined();
    expect(config.model).toMatchObject({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'not-needed', model: 'gpt-4o-mini', maxRetries: 2 });
  });

  it('applies sensible defaults', () => {
    const config = load({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k' });
    expect(config.agent).toEqual({ protocol: 'auto', maxSteps: 8, toolTimeoutMs: 15_000, runTimeoutMs: 300_000, toolOutputMaxChars: 4_000, approvalTimeoutMs: 86_400_000 });
    expect(config.model.models).toBeUndefined();
    expect(config.storage.keyvUrl).toBe('sqlite://data/threadwise.sqlite');
    expect(config.tools.wikipediaApiUrl).toBe('https://en.wikipedia.org/w/api.php');
    expect(config.tools.calculatorWorkers).toBe(2);
    expect(config.discord?.messageContent).toBe(false);
  });

  it('reads the models moderators may choose, always with OPENAI_MODEL among them, or * for any', () => {
    expect(load({ OPENAI_API_KEY: 'k', OPENAI_MODEL: 'a', OPENAI_MODELS: 'b, c,a' }, false).model.models).toEqual(['a', 'b', 'c']);
    expect(load({ OPENAI_API_KEY: 'k', OPENAI_MODELS: '*' }, false).model.models).toBe('*');
  });

  it('bounds model replies and times by default, and leaves the context window to the server unless set', () => {
    const config = load({ OPENAI_API_KEY: 'k' }, false);
    expect(config.model).toMatchObject({ timeoutMs: 60_000, idleTimeoutMs: 30_000, maxTokens: 1_024 });
    expect(config.model.contextTokens).toBeUndefined();
    expect(load({ OPENAI_API_KEY: 'k', MODEL_CONTEXT_TOKENS: '8192' }, false).model.contextTokens).toBe(8_192);
  });

  it('refuses a reply limit that leaves no room for the request', () => {
    const problems = problemsOf({ OPENAI_API_KEY: 'k', MODEL_MAX_TOKENS: '4096', MODEL_CONTEXT_TOKENS: '4096' }, false);
    expect(problems).toEqual([expect.stringMatching(/MODEL_MAX_TOKENS \(4096\) must be smaller than MODEL_CONTEXT_TOKENS \(4096\)/)]);
  });

  it('reads the calculator worker count and refuses one outside 1-16', () => {
    expect(load({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k', CALCULATOR_WORKERS: '4' }).tools.calculatorWorkers).toBe(4);
    expect(problemsOf({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k', CALCULATOR_WORKERS: '0' })).toEqual([
      'CALCULATOR_WORKERS must be a whole number from 1 to 16 (got "0").',
    ]);
  });

  it('documents every variable it reads in .env.example', () => {
    const example = readFileSync('.env.example', 'utf8');
    const source = readFileSync('src/config.ts', 'utf8');
    const read = [...source.matchAll(/read\.\w+\('([A-Z_]+)'/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(15);
    for (const name of read) expect(example).toContain(`${name}=`);
  });
});
