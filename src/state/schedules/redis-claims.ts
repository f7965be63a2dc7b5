/**
 * Occurrence claims in Redis: one hash per namespace, a field per schedule holding `last|lastRun`.
 * A claim is a Lua script (read the mark, refuse unless the occurrence is later, write the new mark),
 * which Redis runs without interleaving any other client's command.
 */
import type { RedisClientType } from '@keyv/redis';
import { guarded } from '../backends/backend.js';
import type { OccurrenceClaims, OccurrenceMark } from './occurrence-claims.js';

// KEYS[1]: the marks hash. ARGV: schedule, occurrence ms, '1' to run or '0' to skip.
// Returns nil when lost, else {'ok', previous last run or ''}.
const CLAIM = `local current = redis.call('HGET', KEYS[1], ARGV[1])
local last, lastRun = -1, ''
if current then
  local l, r = string.match(current, '^(%d+)|(%d*)$')
  last, lastRun = tonumber(l), r
end
if tonumber(ARGV[2]) <= last then return false end
local run = lastRun
if ARGV[3] == '1' then run = ARGV[2] end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. run)
return {'ok', lastRun}`;

export function redisClaims(client: RedisClientType, ns: string, where: string, commandMs: number): OccurrenceClaims {
  const key = `${ns}:schedule-marks`;
  const run = <T>(action: string, call: () => Promise<T>) => guarded('redis', where, `schedule ${action}`, () => withTimeout(call(), commandMs));
  const parse = (raw: string | null | undefined): OccurrenceMark | undefined => {
    const match = raw ? /^(\d+)\|(\d*)$/.exec(raw) : null;
    return match ? { lastMs: Number(match[1]), ...(match[2] ? { lastRunMs: Number(match[2]) } : {}) } : undefined;
  };
  return {
    claim: (schedule, atMs, mode) =>
      run('claim', async () => {
        const reply = (await client.eval(CLAIM, { keys: [key], arguments: [schedule, String(Math.floor(atMs)), mode === 'run' ? '1' : '0'] })) as [string, string] | null;
        if (!reply) return { won: false };
        return reply[1] ? { won: true, lastRunMs: Number(reply[1]) } : { won: true };
      }),
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

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
