/**
 * Meaning search where the database cannot compare vectors itself (SQLite, and PostgreSQL without
 * pgvector): each collection's vectors of one model are held in memory as one Float32Array, compared
 * to the query in a single pass, and brought up to date only when the collection's vector version
 * (bumped in the same transaction as every change) is no longer the one loaded. Passage ids only grow,
 * so catching up reads the ids (to drop removed passages) and the vectors of passages newer than the
 * newest loaded, not the whole collection again. A search costs one point query for the version and
 * the dot products; a change made by another process is seen at its next search.
 * The cache holds at most `maxBytes` of vectors; the least recently searched collections go first.
 */
import { nearestRows } from './vectors.js';

/** A collection's vectors as loaded: passage ids and one row of `dims` floats each. */
export interface LoadedVectors {
  ids: string[];
  dims: number;
  matrix: Float32Array;
}

/** How to read one collection's vectors of one model. */
export interface VectorSource {
  /** The collection's vector version now (changes whenever its vectors do). */
  version(collection: string): Promise<string>;
  /** The vectors of passages with an id above `afterId` (all of them: 0), by id. */
  load(collection: string, model: string, afterId?: number): Promise<LoadedVectors>;
  /** The ids of the passages that have a vector, ascending. */
  ids(collection: string, model: string): Promise<string[]>;
}

interface Entry extends LoadedVectors {
  version: string;
  bytes: number;
}

export class VectorCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Loads so far (for tests and the bench). */
  loads = 0;

  constructor(private readonly maxBytes = 512 * 1024 * 1024) {}

  /** The `limit` passages nearest to `query` in the collection, best first, with their similarity. */
  async nearest(source: VectorSource, collection: string, model: string, query: Float32Array, limit: number): Promise<Array<{ id: string; score: number }>> {
    const key = JSON.stringify([collection, model]);
    const version = await source.version(collection);
    let entry = this.entries.get(key);
    if (!entry || entry.version !== version) {
      const loaded = entry ? await this.catchUp(entry, source, collection, model) : await source.load(collection, model);
      this.drop(key);
      this.loads += 1;
      entry = { ...loaded, version, bytes: loaded.matrix.byteLength + loaded.ids.length * 16 };
      // A collection larger than the whole cache is searched from this load and not kept.
      if (entry.bytes <= this.maxBytes) {
        while (this.bytes + entry.bytes > this.maxBytes && this.entries.size) this.drop(this.entries.keys().next().value!);
        this.entries.set(key, entry);
        this.bytes += entry.bytes;
      }
    } else {
      // Most recently used last, so the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    const found = entry;
    return nearestRows(found.matrix, found.dims, query, limit).map(({ row, score }) => ({ id: found.ids[row]!, score }));
  }

  /** `entry` with removed passages dropped and newer ones added. */
  private async catchUp(entry: Entry, source: VectorSource, collection: string, model: string): Promise<LoadedVectors> {
    const newest = entry.ids.length ? Number(entry.ids[entry.ids.length - 1]) : 0;
    const [ids, added] = await Promise.all([source.ids(collection, model), source.load(collection, model, newest)]);
    const present = new Set(ids);
    const dims = added.ids.length && entry.dims && added.dims !== entry.dims ? 0 : entry.dims || added.dims;
    // A different size (the model's dimensions changed under the same name): start again from the database.
    if (dims === 0) return source.load(collection, model);
    const kept: number[] = [];
    entry.ids.forEach((id, row) => present.has(id) && kept.push(row));
    const matrix = new Float32Array((kept.length + added.ids.length) * dims);
    kept.forEach((row, i) => matrix.set(entry.matrix.subarray(row * dims, (row + 1) * dims), i * dims));
    matrix.set(added.matrix, kept.length * dims);
    return { ids: [...kept.map((row) => entry.ids[row]!), ...added.ids], dims, matrix };
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** Rows of vectors into one matrix; rows of another size than the first (a changed model) are left out. */
export function toLoaded(rows: Array<{ id: string; vector: Float32Array }>): LoadedVectors {
  const dims = rows[0]?.vector.length ?? 0;
  const kept = rows.filter((r) => r.vector.length === dims);
  const matrix = new Float32Array(kept.length * dims);
  kept.forEach((r, i) => matrix.set(r.vector, i * dims));
  return { ids: kept.map((r) => r.id), dims, matrix };
}
