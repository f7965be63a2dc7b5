/** Opening a usage limiter on a test backend, limits to admit with, and cleaning a namespace's rows away. */
import type KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@keyv/redis';
import { DEFAULT_TIMEOUTS } from '../../../src/storage/key-value.js';
import type { Backend } from '../../../src/storage/registry.js';
import { openBackend } from '../../../src/storage/open.js';
import { createUsageLimiter, priceTable, type EffectiveLimits, type UsageLimiter } from '../../../src/state/usage/index.js';
import { CLAIM_TABLE, USAGE_TABLE, WINDOW_TABLE } from '../../../src/storage/sql/usage-statements.js';
import { purgeNamespace } from './targets.js';

export interface LimiterOptions {
  namespace: string;
  now?: () => Date;
  leaseMs?: number;
  windowSeconds?: number;
  reserveTokens?: number;
  heartbeatMs?: number;
  owner?: { id: string; slot?: string };
}

/** The limits a test admits with: the defaults unless overridden. */
export function limits(over: Partial<EffectiveLimits> = {}): EffectiveLimits {
  return { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000, exempt: false, ...over };
}

/** Open `url` and a limiter over it. */
export async function openLimiter(url: string, options: LimiterOptions): Promise<{ backend: Backend; limiter: UsageLimiter }> {
  const backend = await openBackend(url, process.cwd(), { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 }, onBackgroundError: () => {} });
  const limiter = await limiterOver(backend, options);
  return { backend, limiter };
}

/** A limiter over an already open backend. */
export function limiterOver(backend: Backend, options: LimiterOptions): Promise<UsageLimiter> {
  return createUsageLimiter({
    backend,
    namespace: options.namespace,
    now: options.now ?? (() => new Date()),
    prices: priceTable(),
    leaseMs: options.leaseMs ?? 60_000,
    windowSeconds: options.windowSeconds,
    reserveTokens: options.reserveTokens,
    heartbeatMs: options.heartbeatMs,
    owner: options.owner,
  });
}

/** Remove everything the limiter wrote under `namespace` on the shared servers. */
export async function purgeUsage(backend: Backend, namespace: string): Promise<void> {
  if (backend.kind === 'redis') {
    await purgeNamespace(backend, namespace);
    const client = (backend.keyv.store as KeyvRedis<unknown>).client as RedisClientType;
    for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) if (keys.length > 0) await client.del(keys);
  } else if (backend.native.kind === 'postgres') {
    const pool = backend.native.pool;
    await pool.query(`DELETE FROM ${USAGE_TABLE} WHERE ns = $1`, [namespace]);
    await pool.query(`DELETE FROM ${CLAIM_TABLE} WHERE ns = $1`, [namespace]);
    await pool.query(`DELETE FROM ${WINDOW_TABLE} WHERE key LIKE $1`, [`${namespace}:%`]);
  }
}
