/**
 * Passage vectors in PostgreSQL, beside the full-text index. Where the `vector` extension (pgvector)
 * exists, or can be created, the column is a `vector` and the database ranks by cosine distance
 * itself (an exact scan of the server's passages, so a server's search never misses passages another
 * server's crowd out, as an approximate index filtered afterwards can). Elsewhere it is a plain
 * `real[]` column, read in its binary form (array_send) into the same in-memory cache SQLite uses and kept
 * fresh by a version per collection. The choice is made once, when the table is created.
 */
import type pg from 'pg';
import { fromPgFloat4Array, toPgvector } from '../vectors.js';
import { toLoaded, type VectorCache } from '../vector-cache.js';
import { parseHeadings, toRawHit, type PassageRow, type VectorStore } from '../search-index.js';

type Query = <T>(sql: string, params?: unknown[], on?: pg.Pool | pg.PoolClient) => Promise<T[]>;
export type PgVectorKind = 'pgvector' | 'pg-array';

/** Which column the vectors table has (or, for a new one, can have); `array` forces the fallback. */
export async function pgVectorKind(query: Query, p: string, prefer: 'auto' | 'array'): Promise<PgVectorKind> {
  const [column] = await query<{ udt_name: string }>(
    `SELECT udt_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'embedding'`, [`${p}vectors`]);
  if (column) return column.udt_name === 'vector' ? 'pgvector' : 'pg-array';
  if (prefer === 'array') return 'pg-array';
  const [available] = await query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  if (available) await query('CREATE EXTENSION IF NOT EXISTS vector').catch(() => undefined);
  const [installed] = await query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
  return installed ? 'pgvector' : 'pg-array';
}

/** The statements creating the vector tables. */
export function pgVectorSchema(p: string, kind: PgVectorKind): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}vectors (
      passage_id BIGINT PRIMARY KEY REFERENCES ${p}passages (id) ON DELETE CASCADE, collection TEXT NOT NULL, model TEXT NOT NULL,
      embedding ${kind === 'pgvector' ? 'vector' : 'real[]'} NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${p}vectors_model ON ${p}vectors (collection, model)`,
    `CREATE TABLE IF NOT EXISTS ${p}vector_versions (collection TEXT PRIMARY KEY, version BIGINT NOT NULL)`,
  ];
}

/** A vector as the column's text input. */
export function pgVectorText(kind: PgVectorKind, vector: Float32Array): string {
  return kind === 'pgvector' ? toPgvector(vector) : `{${Array.from(vector).join(',')}}`;
}

/** Bump a collection's vector version (inside the transaction that changed its vectors). */
export async function bumpPgVectors(query: Query, p: string, collection: string, on: pg.PoolClient): Promise<void> {
  await query(`INSERT INTO ${p}vector_versions (collection, version) VALUES ($1, 1) ON CONFLICT (collection) DO UPDATE SET version = ${p}vector_versions.version + 1`, [collection], on);
}

/** Insert vectors for passages of one collection; ids and vectors in the same order. */
export async function insertPgVectors(query: Query, p: string, kind: PgVectorKind, model: string, ids: string[], vectors: Float32Array[], on: pg.PoolClient): Promise<string[]> {
  const rows = await query<{ collection: string }>(
    `INSERT INTO ${p}vectors (passage_id, collection, model, embedding)
     SELECT x.id, x.collection, $1, t.e::${kind === 'pgvector' ? 'vector' : 'real[]'}
     FROM unnest($2::bigint[], $3::text[]) AS t(id, e) JOIN ${p}passages x ON x.id = t.id
     ON CONFLICT (passage_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding
     RETURNING collection`,
    [model, ids, vectors.map((v) => pgVectorText(kind, v))], on);
  return [...new Set(rows.map((r) => r.collection))];
}

const HIT_COLUMNS = 'p.id, p.document_id, p.headings, p.body, p.location, d.title, d.link, d.source, d.channel_id';

/** The vector store over an open PostgreSQL index. */
export function postgresVectors(query: Query, p: string, kind: PgVectorKind, cache: VectorCache, transaction: <T>(work: (c: pg.PoolClient) => Promise<T>) => Promise<T>): VectorStore {
  const source = (model: string) => ({
    version: async (collection: string) => String((await query<{ version: string }>(`SELECT version FROM ${p}vector_versions WHERE collection = $1`, [collection]))[0]?.version ?? 0),
    load: async (collection: string, _model: string, afterId = 0) => {
      // The array's binary form (array_send, as bytea): no parsing of millions of numbers as text.
      const rows = await query<{ id: string; embedding: Buffer }>(
        `SELECT passage_id::text AS id, array_send(embedding) AS embedding FROM ${p}vectors
         WHERE collection = $1 AND model = $2 AND passage_id > $3 ORDER BY passage_id`,
        [collection, model, afterId]);
      return toLoaded(rows.map((r) => ({ id: r.id, vector: fromPgFloat4Array(r.embedding) })));
    },
    ids: async (collection: string) => (await query<{ id: string }>(
      `SELECT passage_id::text AS id FROM ${p}vectors WHERE collection = $1 AND model = $2 ORDER BY passage_id`, [collection, model])).map((r) => r.id),
  });
  const hits = async (scored: Array<{ id: string; score: number }>) => {
    if (scored.length === 0) return [];
    const rows = await query<PassageRow>(`SELECT ${HIT_COLUMNS} FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id WHERE p.id = ANY($1::bigint[])`, [scored.map((s) => s.id)]);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return scored.flatMap((s) => (byId.has(s.id) ? [toRawHit(byId.get(s.id)!, s.score)] : []));
  };
  return {
    kind,
    async nearest(collection, model, vector, limit) {
      if (kind === 'pg-array') return hits(await cache.nearest(source(model), collection, model, vector, limit));
      const rows = await query<{ id: string; score: number }>(
        `SELECT passage_id::text AS id, 1 - (embedding <=> $3::vector) AS score FROM ${p}vectors
         WHERE collection = $1 AND model = $2 AND vector_dims(embedding) = $5 ORDER BY embedding <=> $3::vector LIMIT $4`,
        [collection, model, toPgvector(vector), limit, vector.length]);
      return hits(rows.map((r) => ({ id: r.id, score: Number(r.score) })));
    },
    async pending(model, limit) {
      const rows = await query<{ id: string; collection: string; title: string; headings: unknown; body: string }>(
        `SELECT p.id::text AS id, d.collection, d.title, p.headings, p.body FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id
         LEFT JOIN ${p}vectors v ON v.passage_id = p.id AND v.model = $1
         WHERE v.passage_id IS NULL AND (d.embed_state IS NULL OR d.embed_state <> 'skipped') ORDER BY p.id LIMIT $2`, [model, limit]);
      return rows.map((r) => ({ id: r.id, collection: r.collection, title: r.title, headings: parseHeadings(r.headings), text: r.body }));
    },
    async store(model, rows) {
      if (rows.length === 0) return;
      await transaction(async (client) => {
        const collections = await insertPgVectors(query, p, kind, model, rows.map((r) => r.id), rows.map((r) => r.vector), client);
        for (const collection of collections) await bumpPgVectors(query, p, collection, client);
      });
    },
    async status(model) {
      const [row] = await query<{ passages: string; embedded: string; skipped: string }>(
        `SELECT (SELECT count(*) FROM ${p}passages) AS passages, (SELECT count(*) FROM ${p}vectors WHERE model = $1) AS embedded,
          (SELECT count(*) FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id
           WHERE d.embed_state = 'skipped' AND NOT EXISTS (SELECT 1 FROM ${p}vectors v WHERE v.passage_id = p.id AND v.model = $1)) AS skipped`, [model]);
      return { passages: Number(row?.passages ?? 0), embedded: Number(row?.embedded ?? 0), skipped: Number(row?.skipped ?? 0) };
    },
  };
}
