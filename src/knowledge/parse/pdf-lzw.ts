/**
 * LZWDecode as a streaming stage, as pdf.js's LZWStream decodes it: 9- to 12-bit codes, 256 clears the
 * table, 257 ends the data, and the code width grows one code early unless /EarlyChange is 0. An LZW
 * code can stand for 4,096 bytes, so a small LZW stream can decode to gigabytes: it is counted like deflate.
 */
import type { Emit, Stage } from './pdf-stage.js';

/** The LZW stage; `earlyChange` from /DecodeParms (default 1). */
export function lzw(emit: Emit, earlyChange: number): Stage {
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const prevCodes = new Uint16Array(4096);
  const sequence = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) (values[i] = i), (lengths[i] = 1);
  let [bits, cached, codeLength, nextCode, prevCode, length, done] = [0, 0, 9, 258, 0, 0, false];
  return {
    get done() {
      return done;
    },
    push(chunk) {
      for (const byte of chunk) {
        if (done) return;
        cached = ((cached << 8) | byte) & 0xffffff;
        bits += 8;
        while (bits >= codeLength && !done) {
          bits -= codeLength;
          const code = (cached >>> bits) & ((1 << codeLength) - 1);
          const hadPrev = length > 0;
          if (code < 256) (sequence[0] = code), (length = 1);
          else if (code >= 258 && code < nextCode) {
            length = lengths[code]!;
            for (let j = length - 1, q = code; j >= 0; j--) (sequence[j] = values[q]!), (q = prevCodes[q]!);
          } else if (code >= 258) sequence[length++] = sequence[0]!;
          else if (code === 256) {
            [codeLength, nextCode, length] = [9, 258, 0];
            continue;
          } else {
            done = true;
            break;
          }
          if (hadPrev && nextCode < 4096) {
            [prevCodes[nextCode], lengths[nextCode], values[nextCode]] = [prevCode, lengths[prevCode]! + 1, sequence[0]!];
            nextCode++;
            const n = nextCode + earlyChange;
            if (!(n & (n - 1))) codeLength = Math.min(Math.log2(n) + 1, 12);
          }
          prevCode = code;
          emit(sequence.slice(0, length));
        }
      }
    },
  };
}
