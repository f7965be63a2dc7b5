import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const base = { DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k' };
const load = (env: Record<string, string>, needModel?: boolean): Config =>
  loadConfig({ needDiscord: true, needModel, dotenvDir: false }, env);
const problems = (env: Record<string, string>): string[] => {
  try {
    load(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('configuration for deployment', () => {
  it('runs one process with no health server by default', () => {
    expect(load(base).ops).toEqual({ healthHost: '127.0.0.1', healthPort: undefined });
  });

  it('reads the health server and shard settings', () => {
    const ops = load({ ...base, HEALTH_PORT: '9464', HEALTH_HOST: '0.0.0.0', SHARDS: 'auto', KEYV_URL: 'redis://127.0.0.1:6379' }).ops;
    expect(ops).toEqual({ healthPort: 9464, healthHost: '0.0.0.0', shards: 'auto' });
    expect(load({ ...base, SHARDS: '4', KEYV_URL: 'postgres://u@h/db' }).ops.shards).toBe(4);
  });

  it('inside a shard process, takes the shard id and count the ShardingManager set', () => {
    const env = { ...base, SHARDING_MANAGER: 'true', SHARDS: '1', SHARD_COUNT: '3', KEYV_URL: 'redis://127.0.0.1:6379' };
    expect(load(env).ops).toMatchObject({ shards: 3, shard: { id: 1, count: 3 } });
  });

  it('refuses shards on SQLite and on memory, naming the storage to use instead', () => {
    expect(problems({ ...base, SHARDS: '2' })).toEqual([
      'SHARDS runs one process per shard, and the shards share threads, tool rules and limits through KEYV_URL: set KEYV_URL to redis://… or postgres://… (a SQLite file belongs to one machine).',
    ]);
    expect(problems({ ...base, SHARDS: 'auto', KEYV_URL: 'memory:' })[0]).toMatch(/set KEYV_URL to redis:\/\/… or postgres:\/\/… \(memory: lives and dies inside one process\)/);
  });

  it('refuses a health port whose shard ports would go past 65535', () => {
    expect(problems({ ...base, SHARDS: '10', KEYV_URL: 'redis://h', HEALTH_PORT: '65530' })).toEqual([
      'HEALTH_PORT 65530 plus one port per shard goes past 65535: choose a lower HEALTH_PORT.',
    ]);
  });

  it('lets deploy-commands go without the model settings, and still asks the bot for them', () => {
    expect(load({ DISCORD_TOKEN: 't' }, false).discord?.token).toBe('t');
    expect(problems({ DISCORD_TOKEN: 't' })).toEqual([expect.stringMatching(/^OPENAI_API_KEY is missing/)]);
  });
});
