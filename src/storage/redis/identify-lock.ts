/** The identify lock in Redis: a key per bot and bucket, set only when absent, that expires by itself when the turn is over. */
import { createClient } from '@keyv/redis';
import type { IdentifyLock } from '../identify-lock.js';

/** `name` tells bots apart that share a server (the bot's user id). */
export async function openRedisIdentifyLock(url: string, name: string): Promise<IdentifyLock> {
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
