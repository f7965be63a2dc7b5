/** The usage limiter's stores on the key-value backend's Redis client: scripts for the claims, the library's Lua for the window. */
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { KeyValueBackend } from '../key-value.js';
import { runWindowOver, windowOptions } from '../run-window.js';
import type { UsageStoreOptions, UsageStores } from '../usage-store.js';
import { redisCounters } from './counters.js';
import type { RedisNative } from './types.js';

/** The counters and window over `backend`'s client (nothing of their own to close). */
export async function openRedisUsage(backend: KeyValueBackend<RedisNative>, options: UsageStoreOptions): Promise<UsageStores> {
  const { client, commandMs } = backend.native;
  return {
    counters: redisCounters(client, options.namespace, backend.where, commandMs),
    window: runWindowOver(new RateLimiterRedis({ ...windowOptions(options.namespace, options.windowSeconds), storeClient: client, useRedisPackage: true })),
    close: async () => {},
  };
}
