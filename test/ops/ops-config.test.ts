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
    expect(load(base).ops).toEqual({ healthHost: '127.0.0.1', healthPort: undefined, restProxy: 'auto', restProxyPort: 8080, restProxyHost: '127.0.0.1' });
  });

  it('reads the health server and shard settings', () => {
    const ops = load({ ...base, HEALTH_PORT: '9464', HEALTH_HOST: '0.0.0.0', SHARDS: 'auto', KEYV_URL: 'redis://127.0.0.1:6379' }).ops;
    expect(ops).toEqual({ healthPort: 9464, healthHost: '0.0.0.0', shards: 'auto', restProxy: 'auto', restProxyPort: 8080, restProxyHost: '127.0.0.1' });
    expect(load({ ...base, SHARDS: '4', KEYV_URL: 'postgres://u@h/db' }).ops.shards).toBe(4);
  });

  it('inside a shard process, takes the shard id and count the ShardingManager set', () => {
    const env = { ...base, SHARDING_MANAGER: 'true', SHARDS: '1', SHARD_COUNT: '3', KEYV_URL: 'redis://127.0.0.1:6379' };
    expect(load(env).ops).toMatchObject({ shards: 3, shard: { id: 1, count: 3 } });
  });

  it('splits the shards between hosts: SHARD_COUNT in all, SHARD_IDS here (ranges and lists)', () => {
    const redis = { ...base, KEYV_URL: 'redis://127.0.0.1:6379' };
    expect(load({ ...redis, SHARD_COUNT: '8', SHARD_IDS: '0-3' }).ops).toMatchObject({ shards: 8, shardIds: [0, 1, 2, 3] });
    expect(load({ ...redis, SHARD_COUNT: '8', SHARD_IDS: '6, 0-1,2' }).ops.shardIds).toEqual([0, 1, 2, 6]);
    expect(load({ ...redis, SHARD_COUNT: '4' }).ops).not.toHaveProperty('shardIds');
    expect(load({ ...redis, SHARD_COUNT: '4' }).ops.shards).toBe(4);
    // Inside a shard process the manager's SHARD_IDS is inherited but is not this process's business.
    expect(load({ ...redis, SHARDING_MANAGER: 'true', SHARDS: '2', SHARD_COUNT: '4', SHARD_IDS: '2-3' }).ops.shard).toEqual({ id: 2, count: 4 });
  });

  it('refuses SHARD_IDS that are malformed, out of range, backwards or without SHARD_COUNT, all in one message', () => {
    const redis = { ...base, KEYV_URL: 'redis://127.0.0.1:6379' };
    expect(problems({ ...redis, SHARD_COUNT: '4', SHARD_IDS: '2-5' })).toEqual([expect.stringMatching(/SHARD_IDS names shard 5, but shard ids run from 0 to 3 with SHARD_COUNT=4/)]);
    expect(problems({ ...redis, SHARD_COUNT: '4', SHARD_IDS: 'a,b' })[0]).toMatch(/SHARD_IDS must be shard ids and ranges separated by commas \(got "a,b"; e.g. 0-3 or 0,2\)/);
    expect(problems({ ...redis, SHARD_COUNT: '4', SHARD_IDS: '3-1' })[0]).toMatch(/runs backwards \(3-1\)/);
    expect(problems({ ...redis, SHARD_IDS: '0-1' })[0]).toMatch(/SHARD_IDS needs SHARD_COUNT/);
    expect(problems({ ...redis, SHARD_COUNT: '0' })[0]).toMatch(/SHARD_COUNT must be a whole number from 1 to 10000/);
    expect(problems({ ...redis, SHARD_COUNT: '4', SHARDS: '2' })[0]).toMatch(/SHARD_COUNT \(4, the total over every host\) and SHARDS \(2\) disagree/);
    expect(problems({ ...base, SHARD_COUNT: '2' })[0]).toMatch(/set KEYV_URL to redis/);
  });

  it('reads DISCORD_REST_PROXY (auto, off or a URL) and the trace settings', () => {
    expect(load({ ...base, DISCORD_REST_PROXY: 'off' }).ops.restProxy).toBe('off');
    expect(load({ ...base, DISCORD_REST_PROXY: 'http://proxy:8080/' }).ops.restProxy).toEqual({ url: 'http://proxy:8080' });
    expect(problems({ ...base, DISCORD_REST_PROXY: 'proxy' })).toEqual([
      expect.stringMatching(/DISCORD_REST_PROXY must be an http\(s\) URL/), 'DISCORD_REST_PROXY may also be auto or off.',
    ]);
    expect(load(base).ops.traces).toBeUndefined();
    expect(load({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_CAPTURE_CONTENT: 'true' }).ops.traces)
      .toEqual({ endpoint: 'http://collector:4318', serviceName: 'threadwise', captureContent: true });
    expect(problems({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector', OTEL_CAPTURE_CONTENT: 'perhaps' })).toHaveLength(2);
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
