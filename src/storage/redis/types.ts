/** The Redis backend's shapes: the server a URL names, and the client its key-value backend shares. */
import type { RedisClientType } from '@keyv/redis';

/** Where a URL of this backend points. */
export interface RedisTarget {
  readonly kind: 'redis';
  readonly url: string;
}

/** The client Keyv uses, and the bound on one command (node-redis stops counting once a command is sent). */
export interface RedisNative {
  readonly kind: 'redis';
  readonly client: RedisClientType;
  readonly commandMs: number;
}
