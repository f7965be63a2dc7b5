/**
 * Logins (gateway IDENTIFYs) spaced across every process and host of the bot. Discord lets
 * `max_concurrency` shards identify at once, in buckets `shard_id % max_concurrency`, and each bucket
 * once every 5 seconds; more and it refuses the session (and a session start is used up). Each host's
 * discord.js only spaces its own shards, so the turn of a bucket is a claim in the shared store the
 * shards already use (a backend that declares `identifyLock`: Redis, PostgreSQL): whoever claims a bucket may identify now, and the claim
 * lasts `spacingMs`, so the next one goes at least that much later, whichever host it runs on.
 */
import type { IdentifyLock } from '../storage/identify-lock.js';

export type { IdentifyLock } from '../storage/identify-lock.js';
/** The lock on the store at a URL whose backend declares one (the registry's `identifyLock`). */
export { openIdentifyLock } from '../storage/open.js';

export interface IdentifyThrottlerOptions {
  lock: IdentifyLock;
  maxConcurrency: number;
  /** Time a bucket's claim lasts. Default 5,500 ms: Discord's 5 s plus room for the IDENTIFY's own trip. */
  spacingMs?: number;
  /** How often to try again while another shard holds the bucket. Default 250 ms. */
  pollMs?: number;
}

/** discord.js's IIdentifyThrottler over the shared lock: resolves when `shardId` may identify. */
export function sharedIdentifyThrottler(options: IdentifyThrottlerOptions) {
  const spacing = options.spacingMs ?? 5_500;
  const poll = options.pollMs ?? 250;
  return {
    async waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
      const bucket = shardId % Math.max(1, options.maxConcurrency);
      while (!(await options.lock.claim(bucket, spacing))) {
        signal.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, poll));
      }
    },
  };
}
