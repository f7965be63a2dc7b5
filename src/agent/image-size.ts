/**
 * What an image costs a model, read from the image's own header (PNG, JPEG, GIF, WebP) without
 * decoding it: its width and height, and from them the tokens OpenAI counts for a high-detail image
 * (the image fitted within 2048×2048, then its shorter side to 768; 170 tokens per 512-pixel tile,
 * plus 85). Other servers count their own way; this is the rule the history's budget is kept with.
 */
import { IMAGE_TOKENS } from './content.js';

/** Width and height from an image's first bytes; undefined when the format is not one of the four. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const b = bytes;
  const u16be = (i: number) => (b[i]! << 8) | b[i + 1]!;
  const u16le = (i: number) => b[i]! | (b[i + 1]! << 8);
  const u32be = (i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return { width: u16le(6), height: u16le(8) };
  if (b.length >= 30 && b[0] === 0x52 && b[1] === 0x49 && b[8] === 0x57 && b[9] === 0x45) {
    const chunk = String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!);
    if (chunk === 'VP8X') return { width: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)), height: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)) };
    if (chunk === 'VP8L') {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
    if (chunk === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // Walk the markers to the first start of frame (SOF0-SOF15, not DHT, JPG or DAC).
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { width: u16be(i + 7), height: u16be(i + 5) };
      if (marker === 0xd9 || marker === 0xda) return undefined;
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

/** OpenAI's token count for a high-detail image of this size. */
export function imageTokensFor(width: number, height: number): number {
  if (!(width > 0 && height > 0)) return IMAGE_TOKENS;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorter = Math.min(1, 768 / Math.min(w, h));
  w *= shorter;
  h *= shorter;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Base64 characters read for a header: a JPEG's frame header sits after its tables, well inside this. */
const HEADER_BASE64_CHARS = 87_384;

/** Tokens of an image part's URL: from a data URL's header when it can be read, else IMAGE_TOKENS. */
export function imageUrlTokens(url: string): number {
  const comma = url.startsWith('data:') ? url.indexOf(',') : -1;
  if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) return IMAGE_TOKENS;
  const head = url.slice(comma + 1, comma + 1 + HEADER_BASE64_CHARS);
  const size = imageDimensions(Buffer.from(head.slice(0, head.length - (head.length % 4)), 'base64'));
  return size ? imageTokensFor(size.width, size.height) : IMAGE_TOKENS;
}
