/**
 * Meaning search where the database cannot compare vectors itself (SQLite, and PostgreSQL without
 * pgvector): each collection's vectors of one model are held in memory as one Float32Array, compared
 * to the query in a single pass, and reloaded only when the collection's vector version (bumped in the
 * same transaction as every change) is no longer the one loaded. So a search costs one point query for
 * the version and the dot products; a change made by another process is seen at its next search.
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
  load(collection: string, model: string): Promise<LoadedVectors>;
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
      this.drop(key);
      const loaded = await source.load(collection, model);
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
