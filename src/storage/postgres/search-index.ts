/**
 * The knowledge index in PostgreSQL: documents and passages tables, each passage with a `tsvector`
 * (title and headings weighted A, body B, plus one lexeme standing for its collection) under a GIN
 * index. The collection's lexeme is AND-ed to the query inside the index, so the GIN index alone finds
 * a server's matching passages (a separate btree on the collection tempts the planner into reading all
 * of a server's passages and testing each). Matched with websearch_to_tsquery and
 * ranked with ts_rank_cd. Writes take a transaction-scoped advisory lock per collection, so the cap
 * check and the write are atomic across every process sharing the database.
 */
import type pg from 'pg';
import { createAll } from '../postgres-schema.js';
import { inTransaction } from '../postgres-transaction.js';
import {
  collectionKey, DOCUMENT_COLUMNS, toDocumentInfo, toRawHit,
  type DocumentRow, type EmbedState, type PassageRow, type SearchIndex, type WriteOutcome, type WriteRequest,
} from '../search-index.js';
import { guardedCall } from '../storage-failure.js';
import { VectorCache } from '../vector-cache.js';
import { PG_TS_CONFIG, websearchText } from './full-text.js';
import { indexPool } from './index-pool.js';
import { bumpPgVectors, insertPgVectors, pgVectorKind, pgVectorSchema, postgresVectors, type PgVectorKind } from './vectors.js';

export interface PostgresIndexOptions {
  prefix: string;
  /** `array` keeps vectors in a plain real[] column even where pgvector exists (tests of the fallback). */
  vectorColumn?: 'auto' | 'array';
  vectorCache?: VectorCache;
  connectMs: number;
  queryMs: number;
  onBackgroundError: (message: string) => void;
}

function schema(p: string): string[] {
  const cfg = `'${PG_TS_CONFIG}'::regconfig`;
  return [
    `CREATE TABLE IF NOT EXISTS ${p}documents (
      id BIGSERIAL PRIMARY KEY, collection TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL, link TEXT,
      format TEXT NOT NULL, hash TEXT NOT NULL, bytes BIGINT NOT NULL, passages INTEGER NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL, channel_id TEXT, embed_state TEXT, UNIQUE (collection, source))`,
    `ALTER TABLE ${p}documents ADD COLUMN IF NOT EXISTS embed_state TEXT`,
    `CREATE TABLE IF NOT EXISTS ${p}passages (
      id BIGSERIAL PRIMARY KEY, document_id BIGINT NOT NULL REFERENCES ${p}documents (id) ON DELETE CASCADE,
      collection TEXT NOT NULL, ordinal INTEGER NOT NULL, headings JSONB NOT NULL, body TEXT NOT NULL,
      tsv TSVECTOR NOT NULL, location TEXT)`,
    // Added after the first release: new tables have it, old ones get it here.
    `ALTER TABLE ${p}passages ADD COLUMN IF NOT EXISTS location TEXT`,
    `CREATE INDEX IF NOT EXISTS ${p}passages_tsv ON ${p}passages USING GIN (tsv)`,
    `CREATE INDEX IF NOT EXISTS ${p}passages_document ON ${p}passages (document_id)`,
    `CREATE INDEX IF NOT EXISTS ${p}documents_bytes ON ${p}documents (collection, bytes)`,
    // Fails at start-up, not on the first document, when the server lacks the configuration.
    `SELECT ${cfg}`,
  ];
}

/** Connect, create the tables, and return the search index. */
export async function openPostgresIndex(url: string, where: string, options: PostgresIndexOptions): Promise<SearchIndex> {
  const p = options.prefix;
  const guard = <T>(action: string, call: () => Promise<T>) => guardedCall('postgres', where, action, call);
  const pool = indexPool(url, options, (error) => options.onBackgroundError(`knowledge base on PostgreSQL at ${where}: ${error.message}`));
  const query = async <T>(sql: string, params: unknown[] = [], on: pg.Pool | pg.PoolClient = pool) => (await on.query(sql, params)).rows as T[];

  let vectorKind: PgVectorKind = 'pg-array';
  try {
    await guard('creating its tables', async () => {
      await createAll(query, schema(p));
      await addChannelColumn(query, p);
      vectorKind = await pgVectorKind(query, p, options.vectorColumn ?? 'auto');
      await createAll(query, pgVectorSchema(p, vectorKind));
    });
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  const docColumns = DOCUMENT_COLUMNS;
  const findDoc = (collection: string, source: string, on: pg.Pool | pg.PoolClient = pool) =>
    query<DocumentRow & { hash: string; embed_state: EmbedState | null }>(`SELECT ${docColumns}, hash, embed_state FROM ${p}documents WHERE collection = $1 AND source = $2`, [collection, source], on);

  const transaction = <T>(collection: string, work: (client: pg.PoolClient) => Promise<T>) => inTransaction(pool, work, { key: `${p}${collection}`, hash: 'hashtext' });

  return {
    kind: 'postgres',
    where,
    find: (collection, source) =>
      guard('reading', async () => {
        const [row] = await findDoc(collection, source);
        return row && { hash: row.hash, document: toDocumentInfo(row), ...(row.embed_state ? { embedState: row.embed_state } : {}) };
      }),

    write: (request: WriteRequest) =>
      guard('writing', () => transaction(request.collection, async (client): Promise<WriteOutcome> => {
        const existing = (await findDoc(request.collection, request.source, client))[0];
        if (existing && existing.hash === request.hash && !request.replaceSame) return { status: 'unchanged', document: toDocumentInfo(existing) };
        const [used] = await query<{ total: string }>(`SELECT COALESCE(SUM(bytes), 0) AS total FROM ${p}documents WHERE collection = $1`, [request.collection], client);
        const usedBytes = Number(used?.total ?? 0) - Number(existing?.bytes ?? 0);
        if (usedBytes + request.bytes > request.maxBytes) return { status: 'over-cap', usedBytes };
        const values = [request.title, request.link ?? null, request.format, request.hash, request.bytes, request.passages.length, request.now, request.channelId ?? null, request.embedState ?? null];
        let row: DocumentRow;
        if (existing) {
          await query(`DELETE FROM ${p}passages WHERE document_id = $1`, [existing.id], client);
          [row] = (await query<DocumentRow>(
            `UPDATE ${p}documents SET title = $1, link = $2, format = $3, hash = $4, bytes = $5, passages = $6, updated_at = $7, channel_id = $8, embed_state = $9 WHERE id = $10 RETURNING ${docColumns}`,
            [...values, existing.id], client)) as [DocumentRow];
        } else {
          [row] = (await query<DocumentRow>(
            `INSERT INTO ${p}documents (title, link, format, hash, bytes, passages, updated_at, channel_id, embed_state, collection, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${docColumns}`,
            [...values, request.collection, request.source], client)) as [DocumentRow];
        }
        const inserted = await query<{ id: string; ordinal: number }>(
          `INSERT INTO ${p}passages (document_id, collection, ordinal, headings, body, location, tsv)
           SELECT $1, $2, t.ordinal, t.headings::jsonb, t.body, t.location,
             setweight(to_tsvector('${PG_TS_CONFIG}', t.heading_text), 'A') || setweight(to_tsvector('${PG_TS_CONFIG}', t.body), 'B')
               || array_to_tsvector(ARRAY[$7::text])
           FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $8::text[]) AS t(ordinal, headings, heading_text, body, location)
           RETURNING id::text AS id, ordinal`,
          [
            row.id, request.collection,
            request.passages.map((x) => x.ordinal),
            request.passages.map((x) => JSON.stringify(x.headings)),
            request.passages.map((x) => [request.title, ...x.headings].join(' — ')),
            request.passages.map((x) => x.text),
            collectionKey(request.collection),
            request.passages.map((x) => x.location ?? null),
          ],
          client,
        );
        const withVectors = request.passages.filter((x) => x.vector);
        if (request.embeddingModel && withVectors.length) {
          const ids = new Map(inserted.map((r) => [r.ordinal, r.id]));
          await insertPgVectors(query, p, vectorKind, request.embeddingModel, withVectors.map((x) => ids.get(x.ordinal)!), withVectors.map((x) => x.vector!), client);
        }
        await bumpPgVectors(query, p, request.collection, client);
        return { status: existing ? 'replaced' : 'added', document: toDocumentInfo(row) };
      })),

    remove: (collection, idOrSource) =>
      guard('removing a document', () => transaction(collection, async (client) => {
        const [row] = await query<DocumentRow>(
          `DELETE FROM ${p}documents WHERE collection = $1 AND (source = $2 OR ($3::bigint IS NOT NULL AND id = $3::bigint)) RETURNING ${docColumns}`,
          [collection, idOrSource, /^\d{1,15}$/.test(idOrSource) ? idOrSource : null], client);
        if (row) await bumpPgVectors(query, p, collection, client);
        return row ? toDocumentInfo(row) : undefined;
      })),

    list: (collection) =>
      guard('listing documents', async () =>
        (await query<DocumentRow>(`SELECT ${docColumns} FROM ${p}documents WHERE collection = $1 ORDER BY updated_at DESC, id DESC`, [collection])).map(toDocumentInfo)),

    search: (collection, terms, limit) =>
      guard('searching', async () => {
        const rows = await query<PassageRow & { score: number }>(
          // Ranked over the passages alone first, so only the best `limit` rows are joined to their documents.
          `SELECT p.id, p.document_id, p.headings, p.body, p.location, d.title, d.link, d.source, d.channel_id, m.score
           FROM (SELECT p.id, ts_rank_cd(p.tsv, q, 1) AS score
                 FROM ${p}passages p, websearch_to_tsquery('${PG_TS_CONFIG}', $2) q
                 -- Only stop words: the empty query AND-ed with the key would match the whole collection.
                 WHERE numnode(q) > 0 AND p.tsv @@ (q && $4::tsquery) AND p.collection = $1
                 ORDER BY score DESC, p.id LIMIT $3) m
           JOIN ${p}passages p ON p.id = m.id JOIN ${p}documents d ON d.id = p.document_id
           ORDER BY m.score DESC, p.id`,
          [collection, websearchText(terms), limit, collectionKey(collection)],
        );
        return rows.map((r) => toRawHit(r, Number(r.score)));
      }),

    bytes: (collection) =>
      guard('reading', async () => Number((await query<{ total: string }>(`SELECT COALESCE(SUM(bytes), 0) AS total FROM ${p}documents WHERE collection = $1`, [collection]))[0]?.total ?? 0)),

    hasDocuments: (collection) =>
      guard('reading', async () => (await query(`SELECT 1 FROM ${p}documents WHERE collection = $1 LIMIT 1`, [collection])).length > 0),

    vectors: postgresVectors(query, p, vectorKind, options.vectorCache ?? new VectorCache(), (work) => transaction('#vectors', work)),

    close: () => pool.end(),
  };
}

/**
 * The channel column, for an index made before documents remembered their channel: added, and filled
 * in for the documents that came from a Discord message (their source is the message's link,
 * .../guild/channel/message), so passages said in a restricted channel stay there from the first start
 * of this version on.
 */
async function addChannelColumn(query: <T>(sql: string, params?: unknown[]) => Promise<T[]>, p: string): Promise<void> {
  const present = await query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'channel_id'`,
    [`${p}documents`],
  );
  if (present.length > 0) return;
  await query(`ALTER TABLE ${p}documents ADD COLUMN IF NOT EXISTS channel_id TEXT`);
  await query(
    `UPDATE ${p}documents SET channel_id = split_part(source, '/', 6)
     WHERE channel_id IS NULL AND source ~ '^https://discord\\.com/channels/[0-9]{17,20}/[0-9]{17,20}/[0-9]{17,20}$'`,
  );
}
