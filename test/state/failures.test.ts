import { promisify } from 'node:util';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { createStorage, type Storage } from '../../src/state/create-storage.js';
import { sqliteFile } from '../../src/storage/sqlite/declaration.js';
import { POSTGRES_URL, REDIS_URL, targets, tempSqliteUrl, uniqueNamespace } from './helpers/targets.js';
import { closedPort, startTcpProxy } from './helpers/tcp-proxy.js';
import { user } from './helpers/stores.js';

const config = (keyvUrl: string) => ({ keyvUrl, historyTokenBudget: 8_000 });
const quick = { connectMs: 500, commandMs: 300, busyMs: 200 };

/** Time a promise that must reject; returns the error and how long it took. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected a failure');
}

/** A second SQLite connection, as another process would hold one. */
function otherConnection(file: string) {
  const db = new sqlite3.Database(file);
  return { exec: promisify(db.exec.bind(db)), close: promisify(db.close.bind(db)), configure: db.configure.bind(db) };
}

describe('a locked SQLite file', () => {
  it('fails an append within the busy timeout, keeps the history readable, and loses nothing', async () => {
    const { url } = tempSqliteUrl('locked');
    const storage = await createStorage(config(url), { timeouts: quick, namespace: 'locked' });
    await storage.conversations.append('600', [user('kept')]);
    const other = otherConnection(sqliteFile(url, process.cwd()));
    await other.exec("BEGIN IMMEDIATE; INSERT INTO keyv VALUES ('other', 'x');");

    const { error, ms } = await failure(storage.conversations.append('600', [user('refused')]));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/locked by another process\. Nothing was written/);
    expect(ms).toBeLessThan(2_000);
    // Unlike Keyv's default, a lock never reads as an empty thread that the next save would overwrite.
    expect((await storage.conversations.load('600')).messages.map((m) => m.content)).toEqual(['kept']);

    await other.exec('ROLLBACK');
    await other.close();
    await storage.conversations.append('600', [user('later')]);
    expect((await storage.conversations.load('600')).messages.map((m) => m.content)).toEqual(['kept', 'later']);
    await storage.close();
  });

  it('stops start-up with a clear error when another process holds the file exclusively', async () => {
    const { url } = tempSqliteUrl('exclusive');
    await (await createStorage(config(url), { timeouts: quick })).close();
    const other = otherConnection(sqliteFile(url, process.cwd()));
    other.configure('busyTimeout', 1_000);
    await other.exec('PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;');

    const { error, ms } = await failure(createStorage(config(url), { timeouts: quick }));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/locked/);
    expect(ms).toBeLessThan(2_000);
    await other.close();
  });
});

describe('an unreachable server', () => {
  it('stops start-up quickly with a StorageError when nothing listens at the Redis URL', async () => {
    const { error, ms } = await failure(createStorage(config(`redis://127.0.0.1:${await closedPort()}`), { timeouts: quick }));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/Cannot reach the redis server.*KEYV_URL/);
    expect(ms).toBeLessThan(2_000);
  });

  it('stops start-up quickly with a StorageError when nothing listens at the PostgreSQL URL', async () => {
    const { error, ms } = await failure(
      createStorage(config(`postgres://postgres@127.0.0.1:${await closedPort()}/test`), { timeouts: quick, logger: () => {} }),
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/Cannot reach the postgres server/);
    expect(ms).toBeLessThan(2_000);
  });

  it('refuses a KEYV_URL it does not know', async () => {
    await expect(createStorage(config('mongodb://127.0.0.1/x'))).rejects.toThrow(/names no known storage/);
  });
});

const [redis, postgres] = await targets('failures', ['redis', 'postgres']);

describe.runIf(redis!.available)('a Redis server that misbehaves after start-up', () => {
  const namespace = uniqueNamespace('redis-fail');
  const opened: Storage[] = [];
  afterAll(async () => {
    for (const s of opened) await s.conversations.reset('700').catch(() => {});
    for (const s of opened) await s.close();
  });

  it('turns a server that stops answering into a StorageError instead of a hang, and one that goes away too', async () => {
    const proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379));
    const events: string[] = [];
    const storage = await createStorage(config(`redis://127.0.0.1:${proxy.port}`), {
      namespace,
      timeouts: quick,
      logger: (e) => void events.push(e.message),
    });
    const direct = await createStorage(config(REDIS_URL), { namespace });
    opened.push(storage, direct);
    await storage.conversations.append('700', [user('kept')]);

    proxy.freeze();
    const hung = await failure(storage.conversations.load('700'));
    expect(hung.error).toBeInstanceOf(StorageError);
    expect((hung.error as Error).message).toMatch(/did not answer in time/);
    expect(hung.ms).toBeLessThan(1_500);

    proxy.cut();
    const gone = await failure(storage.conversations.append('700', [user('never written')]));
    expect(gone.error).toBeInstanceOf(StorageError);
    expect(gone.ms).toBeLessThan(1_500);
    expect((await direct.conversations.load('700')).messages.map((m) => m.content)).toEqual(['kept']);

    proxy.restore();
    await expect.poll(() => storage.conversations.append('700', [user('back')]).then(() => true, () => false), { timeout: 5_000 }).toBe(true);
    expect((await direct.conversations.load('700')).messages.map((m) => m.content)).toEqual(['kept', 'back']);
    expect(events.some((m) => /Redis at/.test(m))).toBe(true);
    await proxy.close();
  });
});

describe.runIf(postgres!.available)('a PostgreSQL server that misbehaves after start-up', () => {
  it('turns a server that stops answering into a StorageError, and survives dropped connections', async () => {
    const proxy = await startTcpProxy(Number(new URL(POSTGRES_URL).port || 5432));
    const events: string[] = [];
    const proxied = new URL(POSTGRES_URL);
    proxied.port = String(proxy.port);
    const storage = await createStorage(config(proxied.toString()), {
      namespace: uniqueNamespace('pg-fail'),
      timeouts: quick,
      logger: (e) => void events.push(e.message),
    });
    await Promise.all(['800', '801', '802'].map((t) => storage.conversations.append(t, [user('kept')])));

    proxy.freeze();
    const hung = await failure(storage.conversations.load('800'));
    expect(hung.error).toBeInstanceOf(StorageError);
    expect((hung.error as Error).message).toMatch(/did not answer in time/);
    expect(hung.ms).toBeLessThan(1_500);

    // Idle pooled connections dropping (a server restart) used to be an unhandled 'error' event.
    proxy.cut();
    await expect.poll(() => events.some((m) => /PostgreSQL at .*terminated/.test(m))).toBe(true);
    proxy.restore();
    expect((await storage.conversations.load('801')).messages.map((m) => m.content)).toEqual(['kept']);
    for (const t of ['800', '801', '802']) await storage.conversations.reset(t);
    await storage.close();
    await proxy.close();
  });
});
