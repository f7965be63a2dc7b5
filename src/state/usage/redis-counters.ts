/**
 * Leases and counters in Redis. A holder's leases are one sorted set scored by expiry; taking one is a
 * Lua script (drop expired, count, add if below the limit), which Redis runs without interleaving any
 * other client's command. A record is one MULTI of HINCRBYs on the member, channel and server hashes
 * plus the rankings' ZINCRBYs, applied whole and in order whichever process sends it.
 */
import type { RedisClientType } from '@keyv/redis';
import { guarded } from '../backends/backend.js';
import { TOTAL_FIELDS, totalsFrom, type CounterKey, type CounterStore } from './counter-store.js';
import type { UsageTotals } from './types.js';

const ACQUIRE = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[4]) then return {0, held} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - tonumber(ARGV[1])))
return {1, held + 1}`;

// The set lives as long as its latest lease, measured from the caller's clock (PEXPIRE, not PEXPIREAT:
// the server's clock need not agree with ours).

/** Counters of a day are kept this long, then Redis drops them by itself. */
const COUNTER_TTL_SECONDS = 40 * 86_400;
const FIELDS = Object.fromEntries(TOTAL_FIELDS.map((f) => [f, f])) as Record<(typeof TOTAL_FIELDS)[number], string>;

/** The store over an open node-redis client; every call is bounded by `commandMs`. */
export function redisCounters(client: RedisClientType, ns: string, where: string, commandMs: number): CounterStore {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('redis', where, `usage ${action}`, () => withTimeout(call(), commandMs));
  const leaseKey = (holder: string) => `${ns}:usage:lease:${holder}`;
  const dayKey = (day: string, scope: string) => `${ns}:usage:${day}:${scope}`;
  const totalsOf = (hash: Record<string, string> | null | undefined): UsageTotals => totalsFrom(hash, FIELDS);

  return {
    acquire: (holder, leaseId, max, nowMs, expiresAtMs) =>
      run('lease', async () => {
        const [taken, held] = (await client.eval(ACQUIRE, {
          keys: [leaseKey(holder)],
          arguments: [String(nowMs), String(expiresAtMs), leaseId, String(max)],
        })) as [number, number];
        return taken === 1 ? { ok: true as const, held: Number(held) } : { ok: false as const, held: Number(held) };
      }),
    release: (holder, leaseId) =>
      run('release', async () => {
        await client.zRem(leaseKey(holder), leaseId);
      }),
    held: (holder, nowMs) => run('read', () => client.zCount(leaseKey(holder), `(${nowMs}`, '+inf')),
    add: (key: CounterKey, delta) =>
      run('count', async () => {
        const base = dayKey(key.day, key.scope);
        const hashes = [`${base}:m:${key.userId}`, `${base}:c:${key.channelId}`, `${base}:g`];
        const multi = client.multi();
        for (const hash of hashes) {
          for (const field of TOTAL_FIELDS) if (delta[field] !== 0) multi.hIncrBy(hash, field, delta[field]);
          multi.expire(hash, COUNTER_TTL_SECONDS);
        }
        multi.zIncrBy(`${base}:top:member`, delta.totalTokens, key.userId);
        multi.zIncrBy(`${base}:top:channel`, delta.totalTokens, key.channelId);
        multi.expire(`${base}:top:member`, COUNTER_TTL_SECONDS);
        multi.expire(`${base}:top:channel`, COUNTER_TTL_SECONDS);
        multi.hGetAll(hashes[0]!);
        multi.hGetAll(hashes[2]!);
        const replies = (await multi.exec()) as unknown[];
        const [member, guild] = replies.slice(-2) as Array<Record<string, string>>;
        return { member: totalsOf(member), guild: totalsOf(guild) };
      }),
    totals: (day, scope, userId) =>
      run('read', async () => {
        const base = dayKey(day, scope);
        const [member, guild] = (await client
          .multi()
          .hGetAll(userId !== undefined ? `${base}:m:${userId}` : `${base}:none`)
          .hGetAll(`${base}:g`)
          .exec()) as unknown as Array<Record<string, string>>;
        return { member: totalsOf(member), guild: totalsOf(guild) };
      }),
    top: (day, scope, kind, limit) =>
      run('read', async () => {
        if (limit <= 0) return [];
        const base = dayKey(day, scope);
        const ids = await client.zRange(`${base}:top:${kind}`, 0, limit - 1, { REV: true });
        if (ids.length === 0) return [];
        const multi = client.multi();
        for (const id of ids) multi.hGetAll(`${base}:${kind === 'member' ? 'm' : 'c'}:${id}`);
        const hashes = (await multi.exec()) as unknown as Array<Record<string, string>>;
        return ids
          .map((id, i) => ({ id, totals: totalsOf(hashes[i]) }))
          .sort((a, b) => b.totals.totalTokens - a.totals.totalTokens || a.id.localeCompare(b.id));
      }),
    // Redis expires each day's keys by itself (COUNTER_TTL_SECONDS).
    prune: async () => {},
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
