/**
 * Past threads in SQLite: a threads table, an exchanges table and an FTS5 index over the exchanges
 * (external content, kept in step by triggers), beside the knowledge base's tables in the same file.
 * The server's key token is AND-ed to every query inside the index, so one server's search never reads
 * another's exchanges; BM25 ranks, with the knowledge base's tokenizer (Porter stemming, no diacritics).
 */
import { StorageError } from '../../errors.js';
import { SqliteConnection, type SqlRunner } from '../sqlite-connection.js';
import { guardedCall } from '../storage-failure.js';
import { FTS5_TOKENIZER } from './full-text.js';
import { guildKey, type RawThreadHit, type ThreadExchange, type ThreadStore } from '../thread-store.js';
import { threadMatch } from './full-text.js';

function schema(p: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}threads (
  thread_id TEXT PRIMARY KEY, guild_id TEXT NOT NULL, channel_id TEXT NOT NULL, title TEXT NOT NULL, link TEXT NOT NULL,
  updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}threads_guild ON ${p}threads (guild_id, updated_at);
CREATE TABLE IF NOT EXISTS ${p}thread_exchanges (
  id INTEGER PRIMARY KEY, thread_id TEXT NOT NULL, gkey TEXT NOT NULL, at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}thread_exchanges_thread ON ${p}thread_exchanges (thread_id);
CREATE VIRTUAL TABLE IF NOT EXISTS ${p}thread_fts USING fts5(gkey, body,
  content='${p}thread_exchanges', content_rowid='id', tokenize='${FTS5_TOKENIZER}');
CREATE TRIGGER IF NOT EXISTS ${p}thread_exchanges_ai AFTER INSERT ON ${p}thread_exchanges BEGIN
  INSERT INTO ${p}thread_fts (rowid, gkey, body) VALUES (new.id, new.gkey, new.body);
END;
CREATE TRIGGER IF NOT EXISTS ${p}thread_exchanges_ad AFTER DELETE ON ${p}thread_exchanges BEGIN
  INSERT INTO ${p}thread_fts (${p}thread_fts, rowid, gkey, body) VALUES ('delete', old.id, old.gkey, old.body);
END;`;
}

/** Open (creating folder, file and tables as needed) the thread store in `file`, or ':memory:'. */
export async function openSqliteThreads(file: string, options: { prefix: string; busyMs: number }): Promise<ThreadStore> {
  const where = file;
  const guard = <T>(action: string, call: () => Promise<T>) => guardedCall('sqlite', where, `past-thread ${action}`, call);
  const p = options.prefix;
  const db = await guard('opening the database', () => SqliteConnection.open(file, { busyMs: options.busyMs, create: true }));
  try {
    await guard('creating its tables', async () => {
      await db.exec(schema(p));
    });
  } catch (error) {
    await db.close().catch(() => {});
    if (/no such module: fts5/i.test(String((error as Error).message))) {
      throw new StorageError(`The SQLite library in use was built without FTS5, which past-thread search needs (${where}).`, { cause: error });
    }
    throw error;
  }

  const dropThreads = async (tx: SqlRunner, where: string, params: unknown[]) => {
    await tx.run(`DELETE FROM ${p}thread_exchanges WHERE thread_id IN (SELECT thread_id FROM ${p}threads WHERE ${where})`, params);
    await tx.run(`DELETE FROM ${p}threads WHERE ${where}`, params);
  };

  return {
    kind: 'sqlite',
    where,
    add: (x: ThreadExchange, cutoff) =>
      guard('indexing', () => db.transaction(async (tx) => {
        // A thread idle past the TTL was forgotten by its conversation: its old words go too.
        if (cutoff !== undefined) await dropThreads(tx, 'guild_id = ? AND updated_at < ?', [x.guildId, cutoff]);
        await tx.run(
          `INSERT INTO ${p}threads (thread_id, guild_id, channel_id, title, link, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at`,
          [x.threadId, x.guildId, x.channelId, x.title, x.link, x.at.getTime()],
        );
        await tx.run(`INSERT INTO ${p}thread_exchanges (thread_id, gkey, at, body) VALUES (?, ?, ?, ?)`, [x.threadId, guildKey(x.guildId), x.at.getTime(), x.text]);
      })),
    forget: (threadId) => guard('removing a thread', () => db.transaction((tx) => dropThreads(tx, 'thread_id = ?', [threadId]))),
    search: (guildId, terms, limit, cutoff) =>
      guard('searching', async () => {
        const rows = await db.all<{ thread_id: string; channel_id: string; title: string; link: string; body: string; updated_at: number; score: number }>(
          `SELECT e.thread_id, t.channel_id, t.title, t.link, e.body, t.updated_at, m.score
           FROM (SELECT rowid AS id, rank AS score FROM ${p}thread_fts WHERE ${p}thread_fts MATCH ? ORDER BY rank LIMIT ?) m
           JOIN ${p}thread_exchanges e ON e.id = m.id JOIN ${p}threads t ON t.thread_id = e.thread_id
           WHERE t.updated_at >= ? ORDER BY m.score, e.id`,
          [threadMatch(guildKey(guildId), terms), limit, cutoff ?? 0],
        );
        return rows.map((r): RawThreadHit => ({
          threadId: r.thread_id, channelId: r.channel_id, title: r.title, link: r.link, body: r.body, updatedAt: Number(r.updated_at), score: -r.score,
        }));
      }),
    hasThreads: (guildId, cutoff) =>
      guard('reading', async () => (await db.all(`SELECT 1 FROM ${p}threads WHERE guild_id = ? AND updated_at >= ? LIMIT 1`, [guildId, cutoff ?? 0])).length > 0),
    close: () => db.close(),
  };
}
