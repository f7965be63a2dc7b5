/**
 * PDF's decoding filters as streaming stages that hand each decoded piece on and keep nothing, so a
 * stream's decoded size is counted without holding it. Each follows what pdf.js does with the same
 * bytes (a 2-byte zlib header then raw deflate, ASCII85's `z` and `~>`, LZW's early change), since
 * what matters is how much pdf.js would decode. Image codecs (DCT, JPX, JBIG2, CCITT) are not here:
 * reading a page's text never decodes an image, so the chain stops counting at them.
 */
import zlib from 'node:zlib';
import { Inflate } from 'fflate';
import { lzw } from './pdf-lzw.js';
import type { Emit, Stage, StageParams } from './pdf-stage.js';

export type { Emit, Stage, StageParams } from './pdf-stage.js';

/** Fed to fflate a slice at a time: one push inflates all it is given, and deflate reaches 1032:1. */
const SLICE = 8_192;

/** FlateDecode: pdf.js reads the 2-byte zlib header itself and inflates the rest raw (no checksum). */
function flate(emit: Emit): Stage {
  let header: number[] | undefined = [];
  const inflate = new Inflate((data) => data.length && emit(data));
  // fflate marks the final block decoded in its state (`f` set, no block `l` open): the data has ended.
  const state = (inflate as unknown as { s: { f?: number; l?: unknown } }).s;
  let failed = false;
  return {
    get done() {
      return failed || Boolean(state.f && !state.l);
    },
    push(chunk) {
      let at = 0;
      while (header && at < chunk.length) {
        header.push(chunk[at++]!);
        if (header.length < 2) continue;
        const [cmf, flg] = header as [number, number];
        if ((cmf & 0x0f) !== 8 || ((cmf << 8) + flg) % 31 !== 0 || flg & 0x20) failed = true;
        header = undefined;
      }
      for (; at < chunk.length && !this.done; at += SLICE) {
        try {
          inflate.push(chunk.subarray(at, at + SLICE));
        } catch (error) {
          // Damaged data ends the stream for pdf.js as well; a cap reached inside emit is passed on.
          if ((error as { code?: unknown }).code === undefined) throw error;
          failed = true;
        }
      }
    },
  };
}

const isWhite = (c: number) => c === 0 || c === 9 || c === 10 || c === 12 || c === 13 || c === 32;

/** ASCII85Decode: groups of five characters to four bytes, `z` for four zeros, `~` ends it. */
function ascii85(emit: Emit): Stage {
  const group: number[] = [];
  let done = false;
  const flush = (count: number) => {
    let value = 0;
    for (let i = 0; i < 5; i++) value = value * 85 + ((group[i] ?? 117) - 33);
    const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    emit(Uint8Array.from(bytes.slice(0, count)));
    group.length = 0;
  };
  return {
    get done() {
      return done;
    },
    push(chunk) {
      const out: number[] = [];
      for (const c of chunk) {
        if (done) break;
        if (isWhite(c)) continue;
        if (c === 126) {
          if (group.length > 1) flush(group.length - 1);
          done = true;
        } else if (c === 122 && group.length === 0) out.push(0, 0, 0, 0);
        else if ((group.push(c), group.length === 5)) {
          if (out.length) emit(Uint8Array.from(out.splice(0)));
          flush(4);
        }
      }
      if (out.length) emit(Uint8Array.from(out));
    },
  };
}

/** ASCIIHexDecode: hex digit pairs; other characters are skipped, `>` ends it. */
function asciiHex(emit: Emit): Stage {
  let done = false;
  let high = -1;
  return {
    get done() {
      return done;
    },
    push(chunk) {
      const out: number[] = [];
      for (const c of chunk) {
        if (c === 62) {
          if (high >= 0) out.push(high << 4);
          done = true;
          break;
        }
        const digit = c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1;
        if (digit < 0) continue;
        if (high < 0) high = digit;
        else out.push((high << 4) | digit), (high = -1);
      }
      if (out.length) emit(Uint8Array.from(out));
    },
  };
}

/** RunLengthDecode: a length byte, then that many literal bytes or one byte repeated; 128 ends it. */
function runLength(emit: Emit): Stage {
  let done = false;
  let literal = 0;
  let repeat = 0;
  return {
    get done() {
      return done;
    },
    push(chunk) {
      for (let at = 0; at < chunk.length && !done; ) {
        if (literal) {
          const part = chunk.subarray(at, at + literal);
          emit(part);
          literal -= part.length;
          at += part.length;
        } else if (repeat) {
          emit(new Uint8Array(repeat).fill(chunk[at++]!));
          repeat = 0;
        } else {
          const length = chunk[at++]!;
          if (length === 128) done = true;
          else if (length < 128) literal = length + 1;
          else repeat = 257 - length;
        }
      }
    },
  };
}

/**
 * BrotliDecode (pdf.js 5 reads it, decoding the whole stream at once): decoded here once its input is
 * complete, by Node's zlib, never past `limit` bytes; past it the size is reported to `over` instead.
 */
function brotli(emit: Emit, params: StageParams): Stage {
  const input: Uint8Array[] = [];
  return {
    done: false,
    push: (chunk) => void input.push(chunk.slice()),
    end() {
      try {
        emit(zlib.brotliDecompressSync(Buffer.concat(input), { maxOutputLength: params.limit }));
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) params.over(params.limit + 1);
        // Anything else is a damaged stream: pdf.js gets nothing from it either.
      }
    },
  };
}

/** Image codecs: decoders of their own, never run to read text, whose output is not counted. */
export const IMAGE_CODECS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JPX', 'CCITTFaxDecode', 'CCF', 'JBIG2Decode']);

/** The stage for one filter name (full or abbreviated); undefined for a name pdf.js does not decode (it passes the bytes through). */
export function stageFor(filter: string, emit: Emit, params: StageParams): Stage | undefined {
  switch (filter) {
    case 'FlateDecode': case 'Fl': return flate(emit);
    case 'ASCII85Decode': case 'A85': return ascii85(emit);
    case 'ASCIIHexDecode': case 'AHx': return asciiHex(emit);
    case 'RunLengthDecode': case 'RL': return runLength(emit);
    case 'LZWDecode': case 'LZW': return lzw(emit, params.earlyChange ?? 1);
    case 'BrotliDecode': return brotli(emit, params);
    default: return undefined;
  }
}
