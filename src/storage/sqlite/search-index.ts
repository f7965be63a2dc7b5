/**
 * The knowledge index in SQLite: a documents table, a passages table, and an FTS5 index over the
 * passages (external content, kept in step by triggers, so the text is stored once). BM25 ranks,
 * with the title and headings weighing twice the body; the tokenizer is unicode61 with diacritics
 * removed, under the Porter stemmer so "installing" finds "install". The same file as KEYV_URL's
 * by default: the index lives in its own tables beside Keyv's.
 */
import { StorageError } from '../../errors.js';
import { FTS5_TOKENIZER, fts5Match } from './full-text.js';
import { channelOfMessageSource, collectionKey, DOCUMENT_COLUMNS, toDocumentInfo, toRawHit, type DocumentRow, type EmbedState, type PassageRow, type SearchIndex, type WriteOutcome, type WriteRequest } from '../search-index.js';
import { guardedCall } from '../storage-failure.js';
import { SqliteConnection, type SqlRunner } from '../sqlite-connection.js';
import { VectorCache } from '../vector-cache.js';
import { bumpVectors, sqliteVectors, vectorSchema, writeDocumentVectors } from './vectors.js';

const BATCH = 100;
/** BM25 with the collection key ignored and the title and headings weighing twice the body; FTS5's `rank`. */
const RANK = 'bm25(0.0, 2.0, 1.0)';

function schema(p: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}documents (
  id INTEGER PRIMARY KEY, collection TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL, link TEXT,
  format TEXT NOT NULL, hash TEXT NOT NULL, bytes INTEGER NOT NULL, passages INTEGER NOT NULL,
  updated_at TEXT NOT NULL, channel_id TEXT, embed_state TEXT, UNIQUE (collection, source));
CREATE TABLE IF NOT EXISTS ${p}passages (
  id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL, ckey TEXT NOT NULL, ordinal INTEGER NOT NULL,
  headings TEXT NOT NULL, heading_text TEXT NOT NULL, body TEXT NOT NULL, location TEXT);
CREATE INDEX IF NOT EXISTS ${p}passages_document ON ${p}passages (document_id);
CREATE INDEX IF NOT EXISTS ${p}documents_bytes ON ${p}documents (collection, bytes);
CREATE VIRTUAL TABLE IF NOT EXISTS ${p}fts USING fts5(ckey, heading_text, body,
  content='${p}passages', content_rowid='id', tokenize='${FTS5_TOKENIZER}');
CREATE TRIGGER IF NOT EXISTS ${p}passages_ai AFTER INSERT ON ${p}passages BEGIN
  INSERT INTO ${p}fts (rowid, ckey, heading_text, body) VALUES (new.id, new.ckey, new.heading_text, new.body);
END;
CREATE TRIGGER IF NOT EXISTS ${p}passages_ad AFTER DELETE ON ${p}passages BEGIN
  INSERT INTO ${p}fts (${p}fts, rowid, ckey, heading_text, body) VALUES ('delete', old.id, old.ckey, old.heading_text, old.body);
END;
INSERT INTO ${p}fts (${p}fts, rank) VALUES ('rank', '${RANK}');
${vectorSchema(p)}`;
}

/** Open (creating folder, file and tables as needed) the index in `file`, or ':memory:'. */
export async function openSqliteIndex(file: string, options: { prefix: string; busyMs: number; vectorCache?: VectorCache }): Promise<SearchIndex> {
  const where = file;
  const guard = <T>(action: string, call: () => Promise<T>) => guardedCall('sqlite', where, action, call);
  const p = options.prefix;
  const db = await guard('opening the database', () => SqliteConnection.open(file, { busyMs: options.busyMs, create: true }));
  try {
    await guard('creating its tables', async () => {
      await db.exec(schema(p));
      await addChannelColumn(db, p);
      await addColumn(db, p, 'passages', 'location');
      await addColumn(db, p, 'documents', 'embed_state');
    });
  } catch (error) {
    await db.close().catch(() => {});
    if (/no such module: fts5/i.test(String((error as Error).message))) {
      throw new StorageError(`The SQLite library in use was built without FTS5, which the knowledge base needs (${where}). Use PostgreSQL through KNOWLEDGE_URL instead.`, { cause: error });
    }
    throw error;
  }

  const docColumns = DOCUMENT_COLUMNS;
  const findDoc = (collection: string, source: string, on: SqlRunner = db) =>
    on.all<DocumentRow & { hash: string; embed_state: EmbedState | null }>(`SELECT ${docColumns}, hash, embed_state FROM ${p}documents WHERE collection = ? AND source = ?`, [collection, source]);

  return {
    kind: 'sqlite',
    where,
    find: (collection, source) =>
      guard('reading', async () => {
        const [row] = await findDoc(collection, source);
        return row && { hash: row.hash, document: toDocumentInfo(row), ...(row.embed_state ? { embedState: row.embed_state } : {}) };
      }),

    write: (request: WriteRequest) =>
      guard('writing', () => db.transaction(async (tx): Promise<WriteOutcome> => {
        // The document (if any) and the collection's total in one statement: every round trip holds the write lock.
        const [state] = await tx.all<Partial<DocumentRow> & { hash: string | null; total: number }>(
          `SELECT d.id, d.collection, d.source, d.title, d.link, d.format, d.bytes, d.passages, d.updated_at, d.channel_id, d.hash, t.total
           FROM (SELECT COALESCE(SUM(bytes), 0) AS total FROM ${p}documents WHERE collection = ?) t
           LEFT JOIN ${p}documents d ON d.collection = ? AND d.source = ?`,
          [request.collection, request.collection, request.source],
        );
        const existing = state?.id == null ? undefined : (state as DocumentRow & { hash: string });
        if (existing && existing.hash === request.hash && !request.replaceSame) return { status: 'unchanged', document: toDocumentInfo(existing) };
        const usedBytes = Number(state?.total ?? 0) - Number(existing?.bytes ?? 0);
        if (usedBytes + request.bytes > request.maxBytes) return { status: 'over-cap', usedBytes };
        const values = [request.title, request.link ?? null, request.format, request.hash, request.bytes, request.passages.length, request.now.toISOString(), request.channelId ?? null, request.embedState ?? null];
        let id: number;
        if (existing) {
          id = Number(existing.id);
          await tx.run(`DELETE FROM ${p}passages WHERE document_id = ?`, [id]);
          await tx.run(`UPDATE ${p}documents SET title = ?, link = ?, format = ?, hash = ?, bytes = ?, passages = ?, updated_at = ?, channel_id = ?, embed_state = ? WHERE id = ?`, [...values, id]);
        } else {
          id = (await tx.run(`INSERT INTO ${p}documents (collection, source, title, link, format, hash, bytes, passages, updated_at, channel_id, embed_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [request.collection, request.source, ...values])).lastID;
        }
        const ckey = collectionKey(request.collection);
        for (let i = 0; i < request.passages.length; i += BATCH) {
          const batch = request.passages.slice(i, i + BATCH);
          await tx.run(
            `INSERT INTO ${p}passages (document_id, ckey, ordinal, headings, heading_text, body, location) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
            batch.flatMap((passage) => [id, ckey, passage.ordinal, JSON.stringify(passage.headings), [request.title, ...passage.headings].join(' — '), passage.text, passage.location ?? null]),
          );
        }
        if (request.embeddingModel) await writeDocumentVectors(tx, p, ckey, id, request.embeddingModel, request.passages);
        await bumpVectors(tx, p, ckey);
        const document = toDocumentInfo({
          id, collection: request.collection, source: request.source, title: request.title, link: request.link ?? null, format: request.format,
          bytes: request.bytes, passages: request.passages.length, updated_at: request.now.toISOString(), channel_id: request.channelId ?? null,
        });
        return { status: existing ? 'replaced' : 'added', document };
      })),

    remove: (collection, idOrSource) =>
      guard('removing a document', () => db.transaction(async (tx) => {
        const byId = /^\d{1,15}$/.test(idOrSource)
          ? await tx.all<DocumentRow>(`SELECT ${docColumns} FROM ${p}documents WHERE collection = ? AND id = ?`, [collection, Number(idOrSource)])
          : [];
        const [row] = byId.length ? byId : await findDoc(collection, idOrSource, tx);
        if (!row) return undefined;
        await tx.run(`DELETE FROM ${p}passages WHERE document_id = ?`, [row.id]);
        await tx.run(`DELETE FROM ${p}documents WHERE id = ?`, [row.id]);
        await bumpVectors(tx, p, collectionKey(collection));
        return toDocumentInfo(row);
      })),

    list: (collection) =>
      guard('listing documents', async () =>
        (await db.all<DocumentRow>(`SELECT ${docColumns} FROM ${p}documents WHERE collection = ? ORDER BY updated_at DESC, id DESC`, [collection])).map(toDocumentInfo)),

    search: (collection, terms, limit) =>
      guard('searching', async () => {
        const rows = await db.all<PassageRow & { score: number }>(
          // Ranked inside the index first, so only the best `limit` rows are joined to their text.
          `SELECT p.id, p.document_id, p.headings, p.body, p.location, d.title, d.link, d.source, d.channel_id, m.score
           FROM (SELECT rowid AS id, rank AS score FROM ${p}fts WHERE ${p}fts MATCH ? ORDER BY rank LIMIT ?) m
           JOIN ${p}passages p ON p.id = m.id JOIN ${p}documents d ON d.id = p.document_id
           ORDER BY m.score, p.id`,
          [fts5Match(collectionKey(collection), terms), limit],
        );
        return rows.map((r) => toRawHit(r, -r.score));
      }),

    bytes: (collection) =>
      guard('reading', async () => Number((await db.all<{ total: number }>(`SELECT COALESCE(SUM(bytes), 0) AS total FROM ${p}documents WHERE collection = ?`, [collection]))[0]?.total ?? 0)),

    hasDocuments: (collection) =>
      guard('reading', async () => (await db.all(`SELECT 1 FROM ${p}documents WHERE collection = ? LIMIT 1`, [collection])).length > 0),

    vectors: sqliteVectors(db, p, options.vectorCache ?? new VectorCache(), collectionKey),

    close: () => db.close(),
  };
}

/** A TEXT column added after the first release: present in new tables, added to old ones. */
async function addColumn(db: SqliteConnection, p: string, table: string, column: string): Promise<void> {
  const columns = await db.all<{ name: string }>(`PRAGMA table_info(${p}${table})`);
  if (columns.some((c) => c.name === column)) return;
  try {
    await db.run(`ALTER TABLE ${p}${table} ADD COLUMN ${column} TEXT`);
  } catch (error) {
    if (!/duplicate column name/i.test(String((error as Error).message))) throw error;
  }
}

/**
 * The channel column, for an index made before documents remembered their channel: added, and filled
 * in for the documents that came from a Discord message (their source is the message's link), so
 * passages said in a restricted channel stay there from the first start of this version on.
 */
async function addChannelColumn(db: SqliteConnection, p: string): Promise<void> {
  const columns = await db.all<{ name: string }>(`PRAGMA table_info(${p}documents)`);
  if (columns.some((c) => c.name === 'channel_id')) return;
  try {
    await db.run(`ALTER TABLE ${p}documents ADD COLUMN channel_id TEXT`);
  } catch (error) {
    // Another process starting at the same moment added it first.
    if (!/duplicate column name/i.test(String((error as Error).message))) throw error;
  }
  const rows = await db.all<{ id: number; source: string }>(`SELECT id, source FROM ${p}documents WHERE channel_id IS NULL AND source LIKE 'https://discord.com/channels/%'`);
  for (const row of rows) {
    const channelId = channelOfMessageSource(row.source);
    if (channelId) await db.run(`UPDATE ${p}documents SET channel_id = ? WHERE id = ?`, [channelId, row.id]);
  }
}
