/**
 * Past threads in PostgreSQL: a threads table and an exchanges table whose `tsvector` holds the words
 * and one lexeme standing for the server, under a GIN index; the server's lexeme is AND-ed to the query
 * inside the index (as the knowledge base does), matched with websearch_to_tsquery, ranked with
 * ts_rank_cd. Exchanges go with their thread (ON DELETE CASCADE).
 */
import type pg from 'pg';
import { createAll } from '../postgres-schema.js';
import { inTransaction } from '../postgres-transaction.js';
import { guardedCall } from '../storage-failure.js';
import { guildKey, type RawThreadHit, type ThreadExchange, type ThreadStore } from '../thread-store.js';
import { PG_TS_CONFIG, websearchText } from './full-text.js';
import { indexPool } from './index-pool.js';

export interface PostgresThreadsOptions {
  prefix: string;
  connectMs: number;
  queryMs: number;
  onBackgroundError: (message: string) => void;
}

function schema(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}threads (
      thread_id TEXT PRIMARY KEY, guild_id TEXT NOT NULL, channel_id TEXT NOT NULL, title TEXT NOT NULL, link TEXT NOT NULL,
      updated_at BIGINT NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${p}threads_guild ON ${p}threads (guild_id, updated_at)`,
    `CREATE TABLE IF NOT EXISTS ${p}thread_exchanges (
      id BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL REFERENCES ${p}threads (thread_id) ON DELETE CASCADE,
      at BIGINT NOT NULL, body TEXT NOT NULL, tsv TSVECTOR NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${p}thread_exchanges_tsv ON ${p}thread_exchanges USING GIN (tsv)`,
    `CREATE INDEX IF NOT EXISTS ${p}thread_exchanges_thread ON ${p}thread_exchanges (thread_id)`,
  ];
}

/** Connect, create the tables, and return the thread store. */
export async function openPostgresThreads(url: string, where: string, options: PostgresThreadsOptions): Promise<ThreadStore> {
  const p = options.prefix;
  const guard = <T>(action: string, call: () => Promise<T>) => guardedCall('postgres', where, `past-thread ${action}`, call);
  const pool = indexPool(url, options, (error) => options.onBackgroundError(`past-thread search on PostgreSQL at ${where}: ${error.message}`));
  const query = async <T>(sql: string, params: unknown[] = [], on: pg.Pool | pg.PoolClient = pool) => (await on.query(sql, params)).rows as T[];
  try {
    await guard('creating its tables', async () => {
      await createAll(query, schema(p));
    });
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  const transaction = (work: (client: pg.PoolClient) => Promise<void>) => inTransaction(pool, work);

  return {
    kind: 'postgres',
    where,
    add: (x: ThreadExchange, cutoff) =>
      guard('indexing', () => transaction(async (client) => {
        // A thread idle past the TTL was forgotten by its conversation: its old words go too.
        if (cutoff !== undefined) await query(`DELETE FROM ${p}threads WHERE guild_id = $1 AND updated_at < $2`, [x.guildId, cutoff], client);
        await query(
          `INSERT INTO ${p}threads (thread_id, guild_id, channel_id, title, link, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at`,
          [x.threadId, x.guildId, x.channelId, x.title, x.link, x.at.getTime()], client);
        await query(
          `INSERT INTO ${p}thread_exchanges (thread_id, at, body, tsv)
           VALUES ($1, $2, $3, to_tsvector('${PG_TS_CONFIG}', $3) || array_to_tsvector(ARRAY[$4::text]))`,
          [x.threadId, x.at.getTime(), x.text, guildKey(x.guildId)], client);
      })),
    forget: (threadId) => guard('removing a thread', async () => void (await query(`DELETE FROM ${p}threads WHERE thread_id = $1`, [threadId]))),
    search: (guildId, terms, limit, cutoff) =>
      guard('searching', async () => {
        const rows = await query<{ thread_id: string; channel_id: string; title: string; link: string; body: string; updated_at: string; score: number }>(
          `SELECT e.thread_id, t.channel_id, t.title, t.link, e.body, t.updated_at, m.score
           FROM (SELECT e.id, ts_rank_cd(e.tsv, q, 1) AS score
                 FROM ${p}thread_exchanges e, websearch_to_tsquery('${PG_TS_CONFIG}', $1) q
                 -- Only stop words: the empty query AND-ed with the key would match the whole server.
                 WHERE numnode(q) > 0 AND e.tsv @@ (q && $2::tsquery)
                 ORDER BY score DESC, e.id LIMIT $3) m
           JOIN ${p}thread_exchanges e ON e.id = m.id JOIN ${p}threads t ON t.thread_id = e.thread_id
           WHERE t.updated_at >= $4 AND t.guild_id = $5
           ORDER BY m.score DESC, e.id`,
          [websearchText(terms), guildKey(guildId), limit, cutoff ?? 0, guildId],
        );
        return rows.map((r): RawThreadHit => ({
          threadId: r.thread_id, channelId: r.channel_id, title: r.title, link: r.link, body: r.body, updatedAt: Number(r.updated_at), score: Number(r.score),
        }));
      }),
    hasThreads: (guildId, cutoff) =>
      guard('reading', async () => (await query(`SELECT 1 FROM ${p}threads WHERE guild_id = $1 AND updated_at >= $2 LIMIT 1`, [guildId, cutoff ?? 0])).length > 0),
    close: () => pool.end(),
  };
}
