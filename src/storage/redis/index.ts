/** The Redis backend's store families, each on the key-value backend's client (see declaration.ts). */
import type { BackendModule } from '../backend-declaration.js';
import { redisClaims } from './claims.js';
import type { RedisNative, RedisTarget } from './types.js';
import { openRedisIdentifyLock } from './identify-lock.js';
import { openRedisBackend } from './key-value.js';
import { openRedisUsage } from './usage.js';

/** What Redis opens (no knowledge index: it has no full-text search), loaded by its declaration on demand. */
export const redisBackend: BackendModule<RedisTarget, RedisNative> = {
  openKeyValue: (target, options) => openRedisBackend(target.url, options),
  openUsage: openRedisUsage,
  openOccurrenceClaims: async (backend, namespace) => redisClaims(backend.native.client, namespace, backend.where, backend.native.commandMs),
  openIdentifyLock: (target, name) => openRedisIdentifyLock(target.url, name),
};
