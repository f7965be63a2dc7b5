/**
 * Reading a response body without trusting its size: the one place the bot buffers a body it fetched, so every
 * caller gets the same guarantee — never more than `maxBytes` held, and the rest never read (leaving
 * the loop early closes the stream).
 */

/** The body up to `maxBytes`; `truncated` when there was more. */
export async function readCapped(chunks: AsyncIterable<Uint8Array> | null | undefined, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const parts: Buffer[] = [];
  let total = 0;
  if (chunks) {
    for await (const chunk of chunks) {
      const part = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      parts.push(part);
      total += part.length;
      if (total > maxBytes) return { body: Buffer.concat(parts).subarray(0, maxBytes), truncated: true };
    }
  }
  return { body: Buffer.concat(parts), truncated: false };
}
