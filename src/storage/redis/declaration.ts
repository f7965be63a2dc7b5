/**
 * Redis (`redis://`, `rediss://` with TLS): shared by every process and host of the bot, so shards can
 * use it and hold the identify lock in it. It has no full-text search, so no knowledge index or past
 * threads live in it (KNOWLEDGE_URL then names another database).
 */
import type { BackendDeclaration } from '../backend-declaration.js';
import type { RedisNative, RedisTarget } from './types.js';

/** The Redis backend's declaration, listed in the registry. */
export const redis: BackendDeclaration<RedisTarget, RedisNative> = {
  kind: 'redis',
  label: 'Redis',
  schemes: ['redis', 'rediss'],
  spelled: ['redis://', 'rediss://'],
  example: 'redis://host:6379',
  supports: { sharing: true, identifyLock: true, knowledge: { why: 'Redis has no full-text search' } },
  target: (url) => ({ kind: 'redis', url }),
  folders: () => [],
  load: async () => (await import('./index.js')).redisBackend,
};
