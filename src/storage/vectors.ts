/**
 * Vectors as the knowledge base keeps them: unit length (so cosine similarity is a dot product), as
 * Float32Array in memory, as little-endian float32 bytes in SQLite, and as text or float4 arrays in
 * PostgreSQL. Small, allocation-light helpers, since a search may touch tens of thousands of them.
 */

/** `vector` scaled to unit length (a zero vector stays zero). */
export function normalize(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/** Whether this machine stores floats little-endian (then a BLOB is copied, not coded float by float). */
const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

/** The vector as bytes (little-endian float32), for a BLOB. */
export function toBytes(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

/** The vector a BLOB holds. */
export function fromBytes(bytes: Uint8Array): Float32Array {
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~3)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** pgvector's text form, `[0.1,0.2,...]`. */
export function toPgvector(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/**
 * A PostgreSQL float4[] in its binary form (`array_send`: header, one dimension, then length-prefixed
 * big-endian floats), read without the text parser: far faster for a whole collection of vectors.
 */
export function fromPgFloat4Array(bytes: Buffer): Float32Array {
  const dims = bytes.readInt32BE(0);
  if (dims === 0) return new Float32Array(0);
  const length = bytes.readInt32BE(12);
  const out = new Float32Array(length);
  let at = 20;
  for (let i = 0; i < length; i++) {
    const size = bytes.readInt32BE(at);
    out[i] = size === 4 ? bytes.readFloatBE(at + 4) : 0;
    at += 4 + Math.max(0, size);
  }
  return out;
}

/**
 * The `limit` rows of `matrix` (rows of `dims` floats) closest to `query` by dot product, best first.
 * A bounded selection: one pass over the rows, keeping the best few in a small sorted array.
 */
export function nearestRows(matrix: Float32Array, dims: number, query: Float32Array, limit: number): Array<{ row: number; score: number }> {
  const rows = dims > 0 ? matrix.length / dims : 0;
  const best: Array<{ row: number; score: number }> = [];
  if (query.length !== dims || limit <= 0) return best;
  const tail = dims - (dims % 4);
  for (let r = 0; r < rows; r++) {
    const base = r * dims;
    // Four running sums: fewer dependent additions per float, which is most of a search's time.
    let a = 0, b = 0, c = 0, d = 0;
    for (let i = 0; i < tail; i += 4) {
      a += matrix[base + i]! * query[i]!;
      b += matrix[base + i + 1]! * query[i + 1]!;
      c += matrix[base + i + 2]! * query[i + 2]!;
      d += matrix[base + i + 3]! * query[i + 3]!;
    }
    for (let i = tail; i < dims; i++) a += matrix[base + i]! * query[i]!;
    const score = a + b + c + d;
    if (best.length === limit && score <= best[best.length - 1]!.score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at--;
    best.splice(at, 0, { row: r, score });
    if (best.length > limit) best.pop();
  }
  return best;
}
