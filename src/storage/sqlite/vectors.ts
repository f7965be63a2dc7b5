/**
 * Passage vectors in SQLite, in the same file as the full-text index: one BLOB of little-endian
 * float32 per passage (with the model that made it), removed with its passage by a trigger, and a
 * version per collection bumped by every change, which the in-memory VectorCache compares before
 * trusting what it loaded. SQLite cannot compare vectors itself, so nearest() asks the cache.
 */
import { fromBytes, toBytes } from '../vectors.js';
import { toLoaded, type VectorCache } from '../vector-cache.js';
import { parseHeadings, toRawHit, type PassageRow, type StoredPassage, type VectorStore } from '../search-index.js';
import type { SqliteConnection, SqlRunner } from '../sqlite-connection.js';

/** The vector tables, for the index's schema. */
export function vectorSchema(p: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}vectors (passage_id INTEGER PRIMARY KEY, ckey TEXT NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}vectors_model ON ${p}vectors (ckey, model);
CREATE TABLE IF NOT EXISTS ${p}vector_versions (ckey TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS ${p}passages_vd AFTER DELETE ON ${p}passages BEGIN
  DELETE FROM ${p}vectors WHERE passage_id = old.id;
END;`;
}

/** Bump a collection's vector version (inside the transaction that changed its vectors). */
export async function bumpVectors(tx: SqlRunner, p: string, ckey: string): Promise<void> {
  await tx.run(`INSERT INTO ${p}vector_versions (ckey, version) VALUES (?, 1) ON CONFLICT (ckey) DO UPDATE SET version = version + 1`, [ckey]);
}

/** Store the vectors of a document's freshly inserted passages (matched by ordinal). */
export async function writeDocumentVectors(tx: SqlRunner, p: string, ckey: string, documentId: number, model: string, passages: StoredPassage[]): Promise<void> {
  const withVectors = passages.filter((x) => x.vector);
  if (withVectors.length === 0) return;
  const ids = new Map((await tx.all<{ id: number; ordinal: number }>(`SELECT id, ordinal FROM ${p}passages WHERE document_id = ?`, [documentId])).map((r) => [r.ordinal, r.id]));
  for (let i = 0; i < withVectors.length; i += 100) {
    const batch = withVectors.slice(i, i + 100);
    await tx.run(
      `INSERT OR REPLACE INTO ${p}vectors (passage_id, ckey, model, vector) VALUES ${batch.map(() => '(?, ?, ?, ?)').join(', ')}`,
      batch.flatMap((x) => [ids.get(x.ordinal)!, ckey, model, toBytes(x.vector!)]),
    );
  }
}

/** The vector store over an open SQLite index. */
export function sqliteVectors(db: SqliteConnection, p: string, cache: VectorCache, keyOf: (collection: string) => string): VectorStore {
  const source = (model: string) => ({
    version: async (collection: string) => String((await db.all<{ version: number }>(`SELECT version FROM ${p}vector_versions WHERE ckey = ?`, [keyOf(collection)]))[0]?.version ?? 0),
    load: async (collection: string, _model: string, afterId = 0) => toLoaded((await db.all<{ passage_id: number; vector: Buffer }>(
      `SELECT passage_id, vector FROM ${p}vectors WHERE ckey = ? AND model = ? AND passage_id > ? ORDER BY passage_id`, [keyOf(collection), model, afterId],
    )).map((r) => ({ id: String(r.passage_id), vector: fromBytes(r.vector) }))),
    ids: async (collection: string) => (await db.all<{ passage_id: number }>(
      `SELECT passage_id FROM ${p}vectors WHERE ckey = ? AND model = ? ORDER BY passage_id`, [keyOf(collection), model],
    )).map((r) => String(r.passage_id)),
  });
  return {
    kind: 'sqlite',
    async nearest(collection, model, vector, limit) {
      const near = await cache.nearest(source(model), collection, model, vector, limit);
      if (near.length === 0) return [];
      const rows = await db.all<PassageRow>(
        `SELECT p.id, p.document_id, p.headings, p.body, p.location, d.title, d.link, d.source, d.channel_id
         FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id WHERE p.id IN (${near.map(() => '?').join(', ')})`,
        near.map((n) => Number(n.id)),
      );
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      // A passage removed since the cache loaded is simply not found.
      return near.flatMap((n) => (byId.has(n.id) ? [toRawHit(byId.get(n.id)!, n.score)] : []));
    },
    async pending(model, limit) {
      const rows = await db.all<{ id: number; collection: string; title: string; headings: string; body: string }>(
        `SELECT p.id, d.collection, d.title, p.headings, p.body FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id
         LEFT JOIN ${p}vectors v ON v.passage_id = p.id AND v.model = ?
         WHERE v.passage_id IS NULL AND (d.embed_state IS NULL OR d.embed_state <> 'skipped') ORDER BY p.id LIMIT ?`,
        [model, limit],
      );
      return rows.map((r) => ({ id: String(r.id), collection: r.collection, title: r.title, headings: parseHeadings(r.headings), text: r.body }));
    },
    async store(model, rows) {
      if (rows.length === 0) return;
      await db.transaction(async (tx) => {
        const keys = new Set<string>();
        for (const row of rows) {
          const [passage] = await tx.all<{ ckey: string }>(`SELECT ckey FROM ${p}passages WHERE id = ?`, [Number(row.id)]);
          if (!passage) continue;
          keys.add(passage.ckey);
          await tx.run(`INSERT OR REPLACE INTO ${p}vectors (passage_id, ckey, model, vector) VALUES (?, ?, ?, ?)`, [Number(row.id), passage.ckey, model, toBytes(row.vector)]);
        }
        for (const ckey of keys) await bumpVectors(tx, p, ckey);
      });
    },
    async status(model) {
      const [row] = await db.all<{ passages: number; embedded: number; skipped: number }>(
        `SELECT (SELECT count(*) FROM ${p}passages) AS passages, (SELECT count(*) FROM ${p}vectors WHERE model = ?) AS embedded,
          (SELECT count(*) FROM ${p}passages p JOIN ${p}documents d ON d.id = p.document_id
           WHERE d.embed_state = 'skipped' AND NOT EXISTS (SELECT 1 FROM ${p}vectors v WHERE v.passage_id = p.id AND v.model = ?)) AS skipped`,
        [model, model],
      );
      return { passages: Number(row?.passages ?? 0), embedded: Number(row?.embedded ?? 0), skipped: Number(row?.skipped ?? 0) };
    },
  };
}
