/**
 * Occurrence claims in Redis: one hash per namespace, a field per schedule holding
 * `last|lastRun|prevRun|leaseToken|leaseEnds` (a mark written before leases, `last|lastRun`, reads as
 * one with no lease). A claim and a settle are Lua scripts (read the mark, decide, write it), which Redis
 * runs without interleaving any other client's command.
 */
import type { RedisClientType } from '@keyv/redis';
import type { OccurrenceClaims, OccurrenceMark } from '../occurrence-claims.js';
import { guarded } from '../storage-failure.js';
import { withTimeout } from './with-timeout.js';

const SPLIT = `local function split(s)
  local f = {}
  for part in string.gmatch(s .. '|', '([^|]*)|') do f[#f + 1] = part end
  return f
end`;

// KEYS[1]: the marks hash. ARGV: schedule, occurrence ms, '1' to run or '0' to skip, lease token, lease
// end, now. Returns {'won', last run that happened or ''}, or {'lost', end of the unsettled lease or ''}.
// An unsettled claim's own occurrence never ran: then the last run that happened is the one before it.
const CLAIM = `${SPLIT}
local current = redis.call('HGET', KEYS[1], ARGV[1])
local last, lastRun, prevRun, token, ends = -1, '', '', '', ''
if current then
  local f = split(current)
  last, lastRun, prevRun, token, ends = tonumber(f[1]), f[2] or '', f[3] or '', f[4] or '', f[5] or ''
end
local at = tonumber(ARGV[2])
local takeover = at == last and token ~= '' and tonumber(ends) < tonumber(ARGV[6])
if at <= last and not takeover then
  if at == last and token ~= '' then return {'lost', ends} end
  return {'lost', ''}
end
local ran = lastRun
if token ~= '' then ran = prevRun end
local run, newToken, newEnds = ran, '', ''
if ARGV[3] == '1' then run, newToken, newEnds = ARGV[2], ARGV[4], ARGV[5] end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. run .. '|' .. ran .. '|' .. newToken .. '|' .. newEnds)
return {'won', ran}`;

// KEYS[1]: the marks hash. ARGV: schedule, occurrence ms, lease token. Returns 1 when settled.
const SETTLE = `${SPLIT}
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current or ARGV[3] == '' then return 0 end
local f = split(current)
if f[1] ~= ARGV[2] or (f[4] or '') ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], f[1] .. '|' .. (f[2] or '') .. '|' .. (f[3] or '') .. '||')
return 1`;

export function redisClaims(client: RedisClientType, ns: string, where: string, commandMs: number): OccurrenceClaims {
  const key = `${ns}:schedule-marks`;
  const run = <T>(action: string, call: () => Promise<T>) => guarded('redis', where, `schedule ${action}`, () => withTimeout(call(), commandMs));
  const ms = (n: number) => String(Math.floor(n));
  const parse = (raw: string | null | undefined): OccurrenceMark | undefined => {
    const match = raw ? /^(\d+)\|(\d*)(?:\|.*)?$/.exec(raw) : null;
    return match ? { lastMs: Number(match[1]), ...(match[2] ? { lastRunMs: Number(match[2]) } : {}) } : undefined;
  };
  return {
    claim: (schedule, atMs, mode, lease) =>
      run('claim', async () => {
        const args = [schedule, ms(atMs), mode === 'run' ? '1' : '0', mode === 'run' ? lease.token : '', mode === 'run' ? ms(lease.endsMs) : '', ms(lease.nowMs)];
        const [verdict, at] = (await client.eval(CLAIM, { keys: [key], arguments: args })) as [string, string];
        if (verdict === 'won') return at ? { won: true, lastRunMs: Number(at) } : { won: true };
        return at ? { won: false, leaseEndsMs: Number(at) } : { won: false };
      }),
    settle: (schedule, atMs, token) =>
      run('settle', async () => (await client.eval(SETTLE, { keys: [key], arguments: [schedule, ms(atMs), token] })) === 1),
    marks: (schedules) =>
      run('read', async () => {
        const found = new Map<string, OccurrenceMark>();
        if (schedules.length === 0) return found;
        const values = (await client.hmGet(key, [...schedules])) as Array<string | null>;
        schedules.forEach((s, i) => {
          const mark = parse(values[i]);
          if (mark) found.set(s, mark);
        });
        return found;
      }),
    forget: (schedule) => run('forget', async () => void (await client.hDel(key, schedule))),
    close: async () => {},
  };
}
