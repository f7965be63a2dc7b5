/**
 * Many writers of this process on one SQLite file, as the bot has them (Keyv's adapter, the usage
 * counters', the claims', the indexes' connections), writing at the same moment: with libuv's default
 * pool of 4 threads, writers waiting for the lock on their threads used to leave the lock's holder no
 * thread to commit on, and everything failed with SQLITE_BUSY after the busy timeout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteBackend } from '../../src/storage/sqlite/key-value.js';
import { SqliteConnection } from '../../src/storage/sqlite-connection.js';
import { onlyReads, writeGateFor } from '../../src/storage/sqlite-gate.js';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-gate-'));
  closers.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'data.sqlite');
}

describe('writes to one SQLite file from many connections of one process', () => {
  it('all land, however many come at once, with the thread pool at its default size', async () => {
    expect(process.env.UV_THREADPOOL_SIZE ?? '4').toBe('4'); // the pool this test is about
    const file = tempFile();
    // A short busy timeout: a stall shows as SQLITE_BUSY in 1.5 s rather than after the default 3 s.
    const backend = await openSqliteBackend(file, { timeouts: { ...DEFAULT_TIMEOUTS, busyMs: 1_500 }, onBackgroundError: () => {} });
    const connections = await Promise.all(Array.from({ length: 5 }, () => SqliteConnection.open(file, { busyMs: 1_500 })));
    closers.unshift(async () => {
      for (const c of connections) await c.close();
      await backend.close();
    });
    await connections[0]!.run('CREATE TABLE IF NOT EXISTS tally (n INTEGER)');

    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      const c = connections[i % connections.length]!;
      writes.push(c.transaction(async (tx) => {
        await tx.run('INSERT INTO tally (n) VALUES (?)', [i]);
        await tx.all('SELECT count(*) AS n FROM tally');
      }));
      writes.push(backend.keyv.set(`k${i}`, `v${i}`));
      writes.push(backend.append(`log${i}`, `entry ${i}`)); // each its own thread's log (one log's appenders take turns by design)
      writes.push(c.all('SELECT count(*) AS n FROM tally')); // a read between the writes
    }
    const settled = await Promise.allSettled(writes);
    expect(settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
    expect((await connections[1]!.all<{ n: number }>('SELECT count(*) AS n FROM tally'))[0]!.n).toBe(60);
    expect(await backend.keyv.get('k59')).toBe('v59');
    expect(await backend.read('log59')).toHaveLength(1);
  });

  it('lets a failed write go and the next one through', async () => {
    const file = tempFile();
    const connection = await SqliteConnection.open(file, { busyMs: 1_000 });
    closers.unshift(() => connection.close());
    await expect(connection.run('INSERT INTO missing VALUES (1)')).rejects.toThrow(/no such table/);
    await expect(connection.transaction(async (tx) => tx.run('INSERT INTO missing VALUES (1)'))).rejects.toThrow(/no such table/);
    await connection.run('CREATE TABLE t (x)');
    await connection.run('INSERT INTO t VALUES (1)');
    expect(await connection.all('SELECT x FROM t')).toEqual([{ x: 1 }]);
  });

  it('is one gate per file, however its path is written, none for a private in-memory database, and reads take no turn', async () => {
    const file = tempFile();
    const same = writeGateFor(path.join(path.dirname(file), '.', path.basename(file)))!;
    const order: string[] = [];
    let release!: () => void;
    const first = writeGateFor(file)!.write(() => new Promise<void>((resolve) => {
      order.push('first starts');
      release = () => (order.push('first ends'), resolve());
    }));
    const second = same.write(async () => void order.push('same file'));
    await writeGateFor(`${file}-other`)!.write(async () => void order.push('other file')); // does not wait for the first
    expect(order).toEqual(['first starts', 'other file']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'other file', 'first ends', 'same file']);
    expect(writeGateFor(':memory:')).toBeUndefined();
    expect(['SELECT 1', '  select key FROM t', 'PRAGMA table_info(t)'].every(onlyReads)).toBe(true);
    expect(['INSERT INTO t VALUES (1)', 'UPDATE t SET x = 1 RETURNING x', 'DELETE FROM t', 'BEGIN IMMEDIATE', 'PRAGMA journal_mode=WAL', 'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x'].some(onlyReads)).toBe(false);
  });
});
