/**
 * Claims and counters in Redis. A scope's claims are one hash: per claim a field with who holds it
 * (`user|leased|reserved|owner|slot`), one with what it has used and one with its expiry. Taking a
 * claim is a Lua script (drop expired claims, add up what the live ones hold, read the day's totals,
 * decide with `claimVerdict`'s rules, add the claim), which Redis runs without interleaving any other
 * client's command; the per-call read is another script. A record is one MULTI of HINCRBYs on the
 * member, channel and server hashes, the rankings' ZINCRBYs and the claim's usage, applied whole and in
 * order whichever process sends it. Each place (host and journal) keeps a set of its claims, so a
 * restarted process can drop its dead predecessor's at once.
 */
import type { RedisClientType } from '@keyv/redis';
import { guarded } from '../storage-failure.js';
import { TOTAL_FIELDS, totalsFrom, type ClaimResult, type Committed, type CounterKey, type CounterStore, type UsageTotals } from '../usage-store.js';
import { withTimeout } from './with-timeout.js';

// Shared by both scripts: read the scope's claims, drop expired ones (when `drop`), and add up what
// the live ones hold. KEYS[1] is the claims hash; returns held totals and the member's leased runs.
const SCAN_CLAIMS = `local function scan(key, now, user, own, drop)
  local all = redis.call('HGETALL', key)
  local info, used, exp = {}, {}, {}
  for i = 1, #all, 2 do
    local f, v = all[i], all[i + 1]
    local base, suffix = string.match(f, '^([^:]+):(%a+)$')
    if suffix == 'used' then used[base] = tonumber(v)
    elseif suffix == 'exp' then exp[base] = tonumber(v)
    elseif not base then info[f] = v end
  end
  local mr, gr, orr, runs = 0, 0, 0, 0
  for id, v in pairs(info) do
    if (exp[id] or 0) <= now then
      if drop then redis.call('HDEL', key, id, id .. ':used', id .. ':exp') end
    else
      local u, leased, reserved = string.match(v, '^([^|]*)|(%d)|(%d+)|')
      local held = math.max(0, tonumber(reserved) - (used[id] or 0))
      gr = gr + held
      if u == user then
        mr = mr + held
        if leased == '1' then runs = runs + 1 end
      end
      if id == own then orr = held end
    end
  end
  if drop then
    for id in pairs(used) do if not info[id] then redis.call('HDEL', key, id .. ':used', id .. ':exp') end end
  end
  return mr, gr, orr, runs
end
local function tokens(key)
  return tonumber(redis.call('HGET', key, 'totalTokens') or '0') or 0
end
`;

// KEYS: claims hash, member day hash, server day hash, slot set. ARGV: now, id, user, leased, estimate,
// owner, slot, expires, max runs, member cap, server cap, scope, keep-ms.
const CLAIM = `${SCAN_CLAIMS}
local now = tonumber(ARGV[1])
local mr, gr, _, runs = scan(KEYS[1], now, ARGV[3], '', true)
local mu, gu = tokens(KEYS[2]), tokens(KEYS[3])
local leased, estimate, maxRuns, mcap, gcap = ARGV[4] == '1', tonumber(ARGV[5]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
if gcap > 0 and gu + gr >= gcap then return {'guildDailyTokens', gu, gr} end
if mcap > 0 and mu + mr >= mcap then return {'userDailyTokens', mu, mr} end
if leased and maxRuns > 0 and runs >= maxRuns then return {'concurrentRuns', runs, 0} end
local reserve = math.max(0, estimate)
if gcap > 0 then reserve = math.min(reserve, gcap - gu - gr) end
if mcap > 0 then reserve = math.min(reserve, mcap - mu - mr) end
local id = ARGV[2]
redis.call('HSET', KEYS[1], id, ARGV[3] .. '|' .. (leased and '1' or '0') .. '|' .. string.format('%d', reserve) .. '|' .. ARGV[6] .. '|' .. ARGV[7], id .. ':used', 0, id .. ':exp', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[13])
redis.call('SADD', KEYS[4], ARGV[6] .. '|' .. ARGV[12] .. '|' .. id)
redis.call('PEXPIRE', KEYS[4], ARGV[13])
return {'ok', runs + (leased and 1 or 0), reserve}`;

// KEYS: claims hash, member day hash, server day hash. ARGV: now, user, own claim id.
const COMMITTED = `${SCAN_CLAIMS}
local mr, gr, orr, runs = scan(KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3], false)
return {tokens(KEYS[2]), tokens(KEYS[3]), mr, gr, orr, runs}`;

// KEYS: slot set. ARGV: owner kept, namespace. Drops the other owners' claims; returns how many.
const RELEASE_SLOT = `local dropped = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local owner, scope, id = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if owner ~= ARGV[1] then
    dropped = dropped + redis.call('HDEL', ARGV[2] .. ':usage:claims:' .. scope, id)
    redis.call('HDEL', ARGV[2] .. ':usage:claims:' .. scope, id .. ':used', id .. ':exp')
    redis.call('SREM', KEYS[1], m)
  end
end
return dropped`;

/** A slot's set and the scopes' claim hashes outlive a quiet day, then go by themselves. */
const CLAIMS_TTL_MS = 2 * 86_400_000;

/** Counters of a day are kept this long, then Redis drops them by itself. */
const COUNTER_TTL_SECONDS = 40 * 86_400;
const FIELDS = Object.fromEntries(TOTAL_FIELDS.map((f) => [f, f])) as Record<(typeof TOTAL_FIELDS)[number], string>;

/** The store over an open node-redis client; every call is bounded by `commandMs`. */
export function redisCounters(client: RedisClientType, ns: string, where: string, commandMs: number): CounterStore {
  const run = <T>(action: string, call: () => Promise<T>) => guarded('redis', where, `usage ${action}`, () => withTimeout(call(), commandMs));
  const claimsKey = (scope: string) => `${ns}:usage:claims:${scope}`;
  const slotKey = (slot: string) => `${ns}:usage:slot:${slot}`;
  const dayKey = (day: string, scope: string) => `${ns}:usage:${day}:${scope}`;
  const totalsOf = (hash: Record<string, string> | null | undefined): UsageTotals => totalsFrom(hash, FIELDS);

  return {
    claim: (spec, rules) =>
      run('lease', async () => {
        const base = dayKey(rules.day, spec.scope);
        const reply = (await client.eval(CLAIM, {
          keys: [claimsKey(spec.scope), `${base}:m:${spec.userId}`, `${base}:g`, slotKey(spec.slot)],
          arguments: [
            String(rules.nowMs), spec.id, spec.userId, spec.leased ? '1' : '0', String(Math.max(0, Math.floor(spec.estimate))), spec.owner, spec.slot,
            String(rules.expiresAtMs), String(rules.maxConcurrent), String(rules.memberCap), String(rules.guildCap), spec.scope, String(CLAIMS_TTL_MS),
          ],
        })) as [string, number, number];
        return claimResult(reply);
      }),
    unclaim: (scope, id) =>
      run('release', async () => {
        await client.hDel(claimsKey(scope), [id, `${id}:used`, `${id}:exp`]);
      }),
    renew: async (claims, expiresAtMs) => {
      if (claims.length === 0) return;
      await run('heartbeat', async () => {
        const multi = client.multi();
        // Only a claim that still exists is renewed: HSETNX would not do, so HEXISTS is checked by a tiny script.
        for (const c of claims) multi.eval(`if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1] .. ':exp', ARGV[2]) end return 0`, { keys: [claimsKey(c.scope)], arguments: [c.id, String(expiresAtMs)] });
        await multi.exec();
      });
    },
    releaseSlot: (slot, owner) => run('release', async () => Number(await client.eval(RELEASE_SLOT, { keys: [slotKey(slot)], arguments: [owner, ns] }))),
    committed: (day, scope, userId, claimId, nowMs) =>
      run('read', async () => {
        const base = dayKey(day, scope);
        const reply = (await client.eval(COMMITTED, { keys: [claimsKey(scope), `${base}:m:${userId}`, `${base}:g`], arguments: [String(nowMs), userId, claimId] })) as number[];
        const [memberUsed, guildUsed, memberReserved, guildReserved, ownReserved, memberRuns] = reply.map(Number) as [number, number, number, number, number, number];
        return { memberUsed, guildUsed, memberReserved, guildReserved, ownReserved, memberRuns } satisfies Committed;
      }),
    add: (key: CounterKey, delta, claimId) =>
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
        if (claimId !== undefined && delta.totalTokens !== 0) multi.hIncrBy(claimsKey(key.scope), `${claimId}:used`, delta.totalTokens);
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

/** A claim script's reply as a ClaimResult. */
function claimResult([kind, a, b]: [string, number, number]): ClaimResult {
  if (kind === 'ok') return { ok: true, held: Number(a), reserved: Number(b) };
  if (kind === 'concurrentRuns') return { ok: false, limit: kind, held: Number(a) };
  return { ok: false, limit: kind as 'userDailyTokens' | 'guildDailyTokens', used: Number(a), reserved: Number(b) };
}
