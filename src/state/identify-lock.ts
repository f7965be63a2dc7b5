/**
 * Logins (gateway IDENTIFYs) spaced across every process and host of the bot. Discord lets
 * `max_concurrency` shards identify at once, in buckets `shard_id % max_concurrency`, and each bucket
 * once every 5 seconds; more and it refuses the session (and a session start is used up). Each host's
 * discord.js only spaces its own shards, so the turn of a bucket is a claim in the shared store the
 * shards already use (Redis or PostgreSQL): whoever claims a bucket may identify now, and the claim
 * lasts `spacingMs`, so the next one goes at least that much later, whichever host it runs on.
 */
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { lostCreateRace } from '../storage/postgres-schema.js';

/** A claim on one bucket's turn: true when this caller got it (and holds it for `ms`). */
export interface IdentifyLock {
  claim(bucket: number, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

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

/**
 * The lock on the store at `url` (redis:// or postgres://). `name` tells bots apart that share a
 * server (the bot's user id).
 */
export async function openIdentifyLock(url: string, name: string): Promise<IdentifyLock> {
  if (/^rediss?:/i.test(url)) {
    const client = createClient({ url, socket: { connectTimeout: 5_000 } });
    client.on('error', () => undefined);
    await client.connect();
    return {
      async claim(bucket, ms) {
        // SET NX PX: only one caller sets the key, and it disappears by itself when the turn is over.
        return (await client.set(`threadwise:identify:${name}:${bucket}`, String(process.pid), { NX: true, PX: ms })) === 'OK';
      },
      async close() {
        client.destroy();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS threadwise_identify_turns (
      name TEXT NOT NULL, bucket INTEGER NOT NULL, until TIMESTAMPTZ NOT NULL, PRIMARY KEY (name, bucket))`);
  } catch (error) {
    // Two shards creating the table at the same moment: one wins, the other's error is harmless.
    if (!lostCreateRace(error)) {
      await pool.end();
      throw error;
    }
  }
  return {
    async claim(bucket, ms) {
      // One statement: the row is taken only when absent or its turn is over, so two hosts cannot both win.
      const result = await pool.query(
        `INSERT INTO threadwise_identify_turns (name, bucket, until) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (name, bucket) DO UPDATE SET until = EXCLUDED.until WHERE threadwise_identify_turns.until <= clock_timestamp()`,
        [name, bucket, ms],
      );
      return result.rowCount === 1;
    },
    async close() {
      await pool.end();
    },
  };
}
