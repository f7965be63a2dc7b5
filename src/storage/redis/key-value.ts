/**
 * Redis backend over @keyv/redis. A log is one Redis list; an append is RPUSH (plus the idle expiry)
 * in one MULTI, which Redis applies whole or not at all, in arrival order, whichever process sends it.
 *
 * The client is built here rather than by the adapter so that failures surface: the first connection
 * gives up at once instead of retrying forever, and commands are refused (not queued) while a dropped
 * connection is re-established. node-redis's own command timeout stops counting once a command is on
 * the wire, so a server that stops answering would still hang a call; every call here is also raced
 * against `commandMs`.
 */
import Keyv from 'keyv';
import KeyvRedis, { createClient, type RedisClientType } from '@keyv/redis';
import type { KeyValueBackend, LogEntry, OpenOptions } from '../key-value.js';
import { guarded, storageFailure } from '../storage-failure.js';
import { redactUrl } from '../storage-url.js';
import type { RedisNative } from './types.js';
import { withTimeout } from './with-timeout.js';

// Compare-then-write in one server-side step: Redis runs a script without interleaving other commands.
const REPLACE_IF = `if redis.call('LINDEX', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('LSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0`;
const TRIM_IF = `if redis.call('LINDEX', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('LTRIM', KEYS[1], ARGV[1] + 1, -1) return 1 end return 0`;

/** Connect to Redis at `url`; throws StorageError within about `connectMs` when it is not there. */
export async function openRedisBackend(url: string, options: OpenOptions): Promise<KeyValueBackend<RedisNative>> {
  const { connectMs, commandMs } = options.timeouts;
  const where = redactUrl(url);
  let everReady = false;
  let lastReported = '';
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: commandMs },
    socket: {
      connectTimeout: connectMs,
      // Before the first success, fail the start-up; afterwards keep trying in the background.
      reconnectStrategy: (retries: number, cause: Error) =>
        everReady ? Math.min(100 * 2 ** retries, 2_000) : cause,
    },
  });
  client.on('ready', () => {
    everReady = true;
    lastReported = '';
  });
  client.on('error', (error: unknown) => {
    const message = `Redis at ${where}: ${String((error as Error)?.message ?? error)}`;
    // A reconnect loop repeats the same error every attempt; say it once per outage.
    if (everReady && message !== lastReported) options.onBackgroundError(message);
    lastReported = message;
  });

  const adapter = new KeyvRedis(client, { throwOnConnectError: true, throwOnErrors: true });
  const keyv = new Keyv(adapter, { throwOnErrors: true, namespace: undefined, useKeyPrefix: false });
  try {
    await withTimeout(client.connect(), connectMs, `could not connect within ${connectMs} ms`);
    await withTimeout(client.ping(), commandMs, `PING timed out after ${commandMs} ms`);
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw storageFailure('redis', where, 'connecting', error);
  }

  const run = <T>(action: string, call: () => Promise<T>) =>
    guarded('redis', where, action, () => withTimeout(call(), commandMs, `timed out after ${commandMs} ms`));
  return {
    kind: 'redis',
    where,
    keyv,
    native: { kind: 'redis', client: client as unknown as RedisClientType, commandMs },
    append: (log, raw, ttlMs) =>
      run('append', async () => {
        const multi = client.multi().rPush(log, raw);
        await (ttlMs ? multi.pExpire(log, ttlMs) : multi.persist(log)).exec();
      }),
    read: (log) =>
      run('read', async () =>
        (await client.lRange(log, 0, -1)).map((raw, index): LogEntry => ({ ref: String(index), raw })),
      ),
    replace: (log, entry, raw) =>
      run('replace', async () => {
        const done = await client.eval(REPLACE_IF, { keys: [log], arguments: [entry.ref, entry.raw, raw] });
        return done === 1;
      }),
    remove: (log, upTo) =>
      run('remove', async () => {
        if (upTo) await client.eval(TRIM_IF, { keys: [log], arguments: [upTo.ref, upTo.raw] });
        else await client.del(log);
      }),
    close: () =>
      run('close', async () => {
        if (client.isReady) await client.close();
        else if (client.isOpen) client.destroy();
      }),
  };
}
