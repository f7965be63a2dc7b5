import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const load = (env: Record<string, string>) => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...env });
const problems = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (error) {
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration of web search', () => {
  it('has no web search until a provider is set, and takes the one provider whose setting is given', () => {
    expect(load({}).tools.webSearch).toBeUndefined();
    expect(load({ SEARXNG_URL: 'http://searx.lan:8080' }).tools.webSearch).toEqual({ provider: 'searxng', url: 'http://searx.lan:8080', dailyLimit: 100 });
    expect(load({ BRAVE_API_KEY: 'BSA123', WEB_SEARCH_DAILY: '20' }).tools.webSearch).toEqual({ provider: 'brave', apiKey: 'BSA123', dailyLimit: 20 });
    expect(load({ TAVILY_API_KEY: 'tvly-1', BRAVE_API_KEY: 'BSA123', WEB_SEARCH_PROVIDER: 'Tavily' }).tools.webSearch).toEqual({ provider: 'tavily', apiKey: 'tvly-1', dailyLimit: 100 });
    expect(load({ TAVILY_API_KEY: 'tvly-1', WEB_SEARCH_DAILY: '0' }).tools.webSearch?.dailyLimit).toBe(0);
  });

  it('names every problem: two providers without a choice, a chosen provider without its key, an unknown provider, a bad cap', () => {
    expect(problems({ SEARXNG_URL: 'http://searx.lan', TAVILY_API_KEY: 'tvly-1' })).toEqual([
      'SEARXNG_URL and TAVILY_API_KEY are set: choose one web search provider with WEB_SEARCH_PROVIDER=searxng|tavily.',
    ]);
    expect(problems({ WEB_SEARCH_PROVIDER: 'brave' })).toEqual(['WEB_SEARCH_PROVIDER is brave but BRAVE_API_KEY is not set.']);
    expect(problems({ WEB_SEARCH_PROVIDER: 'google', WEB_SEARCH_DAILY: 'lots' })).toEqual([
      'WEB_SEARCH_DAILY must be a whole number from 0 to 1000000 (got "lots").',
      'WEB_SEARCH_PROVIDER must be searxng, brave or tavily (got "google").',
    ]);
  });
});
