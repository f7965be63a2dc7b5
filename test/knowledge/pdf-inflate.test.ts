/**
 * The PDF inflate check on its own, in this process, on PDFs written by hand so each one hides its bomb
 * a different way: behind another filter, deflated twice, as LZW, past a lying /Length and a decoy
 * `endstream`, under a decoy /Filter in a nested dictionary, behind a /Filter given by reference, or
 * labelled an image. Every one must be counted for what pdf.js would decode. A real PDF passes.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkPdfInflate } from '../../src/knowledge/parse/pdf-inflate.js';
import { deflatedZeros, makePdf } from './helpers/make-files.js';

const CAPS = { maxInflatedBytes: 1_000_000_000, maxPageBytes: 32_000_000 };
const STREAM_CAP = /^x\.pdf has a stream that inflates to more than 32 MB \(a PDF bomb/;

/** A PDF body with these objects (dictionary text, data); no cross-reference table is needed here. */
function pdf(...objects: Array<[string, Uint8Array | string | undefined]>): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  objects.forEach(([dict, data], i) => {
    parts.push(Buffer.from(`${i + 1} 0 obj\n${dict}\n`, 'latin1'));
    if (data !== undefined) parts.push(Buffer.from('stream\r\n'), Buffer.from(data as Uint8Array), Buffer.from('\nendstream\n'));
    parts.push(Buffer.from('endobj\n'));
  });
  return Buffer.concat([...parts, Buffer.from('trailer\n<< /Root 1 0 R >>\n%%EOF\n')]);
}

/** ASCII85 as PDF writes it (`z` for four zeros, `~>` at the end). */
function ascii85(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const group = [...bytes.subarray(i, i + 4)];
    const n = group.length;
    while (group.length < 4) group.push(0);
    let value = ((group[0]! << 24) | (group[1]! << 16) | (group[2]! << 8) | group[3]!) >>> 0;
    if (n === 4 && value === 0) { out += 'z'; continue; }
    const digits: string[] = [];
    for (let d = 0; d < 5; d++) (digits.unshift(String.fromCharCode(33 + (value % 85))), (value = Math.floor(value / 85)));
    out += digits.slice(0, n + 1).join('');
  }
  return `${out}~>`;
}

/** LZW codes that make ever longer runs of zeros (each new code is the last one plus a zero), then repeat the longest. */
function lzwZeros(codes: number, options: { end?: boolean } = {}): Uint8Array {
  const out: number[] = [];
  let [acc, bits, width, next] = [0, 0, 9, 258];
  const write = (code: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) (bits -= 8), out.push((acc >>> bits) & 255);
    acc &= (1 << bits) - 1;
  };
  write(0);
  for (let i = 1; i < codes; i++) {
    write(Math.min(next, 4095));
    if (next < 4096) {
      next++;
      if (!((next + 1) & next)) width = Math.min(Math.log2(next + 1) + 1, 12);
    }
  }
  if (options.end !== false) write(257);
  if (bits) out.push((acc << (8 - bits)) & 255);
  return Uint8Array.from(out);
}

const check = (bytes: Uint8Array, caps = CAPS) => () => checkPdfInflate(bytes, 'x.pdf', caps);

describe('the PDF inflate check', () => {
  it('counts a real PDF and lets it through', async () => {
    const real = await makePdf(['A page about lighthouses.', 'A page about harbours.']);
    const count = checkPdfInflate(real, 'real.pdf', CAPS);
    expect(count.streams).toBeGreaterThanOrEqual(2);
    expect(count.inflated).toBeGreaterThan(0);
    expect(count.inflated).toBeLessThan(100_000);
  });

  it('counts a bomb behind ASCII85 and one deflated twice, through every filter', async () => {
    const bomb = await deflatedZeros(50);
    expect(check(pdf([`<< /Filter [/A85 /FlateDecode] >>`, ascii85(bomb)]))).toThrow(STREAM_CAP);
    expect(check(pdf([`<< /Filter [/FlateDecode /Fl] >>`, zlib.deflateSync(bomb)]))).toThrow(STREAM_CAP);
  });

  it('counts an LZW bomb', () => {
    const lzw = lzwZeros(20_000);
    expect(lzw.length).toBeLessThan(40_000);
    expect(check(pdf([`<< /Filter /LZWDecode >>`, lzw]))).toThrow(STREAM_CAP);
    // Under the cap, the count is what LZW decodes to: 1 + 2 + ... + 3838, then 3839 for each repeat.
    const small = lzwZeros(5_000);
    expect(checkPdfInflate(pdf([`<< /Filter /LZW >>`, small]), 'x.pdf', CAPS).inflated).toBe((3838 * 3839) / 2 + (5_000 - 3838) * 3839);
  });

  it('is not shortened by a decoy endstream inside the data, nor by a /Length that says less', async () => {
    const decoy = Buffer.from('\nendstream\nendobj\n', 'latin1');
    // zlib header, a stored deflate block holding the decoy, then the bomb as raw deflate blocks: pdf.js,
    // given the true /Length, decodes it all; whatever stopped at the first `endstream` would not.
    const zeros = zlib.inflateSync(await deflatedZeros(50));
    const data = Buffer.concat([Buffer.from([0x78, 0x9c, 0x00, decoy.length, 0, ~decoy.length & 255, 0xff]), decoy, zlib.deflateRawSync(zeros, { level: 9 })]);
    expect(check(pdf([`<< /Length ${data.length} /Filter /FlateDecode >>`, data]))).toThrow(STREAM_CAP);
    // A /Length too short: pdf.js finds no endstream there and searches for it, decoding it all.
    expect(check(pdf([`<< /Length 10 /Filter /FlateDecode >>`, await deflatedZeros(50)]))).toThrow(STREAM_CAP);
  });

  it('feeds a stream no further than pdf.js reads it: an LZW stream without its end code does not decode the objects after it', () => {
    const noise = new Uint8Array(1_000_000);
    for (let at = 0; at < noise.length; at += 65_536) crypto.getRandomValues(noise.subarray(at, at + 65_536));
    const lzw = lzwZeros(100, { end: false });
    const file = pdf([`<< /Filter /LZWDecode /Length ${lzw.length} >>`, lzw], ['<< /Length 1000000 >>', noise]);
    expect(checkPdfInflate(file, 'x.pdf', CAPS).inflated).toBe((100 * 101) / 2);
  });

  it('refuses a file whose streams each claim the rest of it (lengths reaching the last endstream), without decoding it over and over', () => {
    // Forty ASCII85 streams without their end mark, each /Length reaching the last stream's endstream:
    // pdf.js would read every one to the end of the file. Lengths are padded so offsets are known first.
    const body = 'A'.repeat(100_000);
    const objects = Array.from({ length: 40 }, () => ['<< /Filter /A85 /Length 0000000000 >>', body] as [string, string]);
    let file = Buffer.from(pdf(...objects));
    const text = file.toString('latin1');
    const lastEnd = text.lastIndexOf('\nendstream');
    let at = 0;
    for (let i = 0; i < 40; i++) {
      const dict = text.indexOf('/Length 0000000000', at);
      const dataStart = text.indexOf('stream\r\n', dict) + 8;
      file.write(String(lastEnd - dataStart).padStart(10, '0'), dict + 8, 'latin1');
      at = dataStart;
    }
    expect(check(file)).toThrow('x.pdf is damaged or built to exhaust the reader (its objects or streams do not end where they should); add a repaired copy.');
    file = Buffer.from(pdf(...objects.slice(0, 1)));
    expect(checkPdfInflate(file, 'x.pdf', CAPS).inflated).toBe(80_000);
  });

  it('reads the stream\'s own /Filter, not a decoy in a nested dictionary, and follows one given by reference', async () => {
    const bomb = await deflatedZeros(50);
    expect(check(pdf([`<< /DecodeParms << /Filter /DCTDecode >> /Note (a /Filter /DCTDecode) /Filter /FlateDecode >>`, bomb]))).toThrow(STREAM_CAP);
    expect(check(pdf([`<< /Filter 2 0 R >>`, bomb], ['[/FlateDecode]', undefined]))).toThrow(STREAM_CAP);
  });

  it('finds an object written without a space before obj, as pdf.js reads it', async () => {
    const file = Buffer.concat([Buffer.from('%PDF-1.7\n1 0obj<< /Filter /FlateDecode >>stream\n'), await deflatedZeros(50), Buffer.from('\nendstream\nendobj\n%%EOF\n')]);
    expect(check(file)).toThrow(STREAM_CAP);
  });

  it('reads a dictionary past a stray number where a key should be, and tries a stream whose dictionary it cannot read as deflate', async () => {
    const bomb = await deflatedZeros(50);
    expect(check(pdf([`<< 5 /Filter /FlateDecode >>`, bomb]))).toThrow(STREAM_CAP);
    expect(check(pdf([`<< /Filter /FlateDecode /T (never closed >>`, bomb]))).toThrow(STREAM_CAP);
  });

  it('refuses a file whose objects each run on over the rest of it, instead of reading it over and over', () => {
    const objects = Array.from({ length: 2_000 }, (_, i) => [`<< /T (unclosed ${'x'.repeat(500)} >>`, undefined] as [string, undefined]);
    expect(check(pdf(...objects))).toThrow('x.pdf is damaged or built to exhaust the reader (its objects or streams do not end where they should); add a repaired copy.');
  });

  it('reads the filters as pdf.js does: /F before /Filter, an unknown filter passed through, Brotli decoded, a predictor counted as the second copy it is', async () => {
    const bomb = await deflatedZeros(50);
    expect(check(pdf([`<< /F /FlateDecode /Filter /DCTDecode >>`, bomb]))).toThrow(STREAM_CAP);
    expect(check(pdf([`<< /Filter [/Crypt /FlateDecode] >>`, bomb]))).toThrow(STREAM_CAP);
    expect(check(pdf([`<< /Filter [/FlateDecode /DCTDecode] >>`, bomb]))).toThrow(STREAM_CAP);
    const brotli = zlib.brotliCompressSync(Buffer.alloc(50_000_000));
    expect(brotli.length).toBeLessThan(1_000);
    expect(check(pdf([`<< /Filter /BrotliDecode >>`, brotli]))).toThrow(STREAM_CAP);
    expect(checkPdfInflate(pdf([`<< /Filter /BrotliDecode >>`, zlib.brotliCompressSync(Buffer.alloc(1_000_000))]), 'x.pdf', CAPS).inflated).toBe(1_000_000);
    // 20 MB inflated, held twice by pdf.js behind a PNG predictor: over 32 MB.
    const twenty = await deflatedZeros(20);
    expect(checkPdfInflate(pdf([`<< /Filter /FlateDecode >>`, twenty]), 'x.pdf', CAPS).inflated).toBe(20_000_000);
    expect(check(pdf([`<< /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> >>`, twenty]))).toThrow(STREAM_CAP);
  });

  it('holds a page to the cap for all its content streams together, its dictionary in the file, in an object stream, or its /Contents by reference', async () => {
    const twenty = await deflatedZeros(20);
    const streams: Array<[string, Uint8Array]> = [['<< /Filter /FlateDecode >>', twenty], ['<< /Filter /FlateDecode >>', twenty]];
    const PAGE_CAP = 'x.pdf has a page whose content inflates to more than 32 MB, its content streams together (a PDF bomb, or far more than a page needs) (KNOWLEDGE_PDF_MAX_PAGE_BYTES).';
    // Objects 1 and 2 are the content streams; the page is object 3.
    expect(check(pdf(...streams, ['<< /Type /Page /Contents [1 0 R 2 0 R] >>', undefined]))).toThrow(PAGE_CAP);
    expect(check(pdf(...streams, ['<< /Type /Page /Contents 4 0 R >>', undefined], ['[1 0 R 2 0 R]', undefined]))).toThrow(PAGE_CAP);
    const packed = Buffer.from('3 0 << /Type /Page /Contents [1 0 R 2 0 R] >>', 'latin1');
    const objectStream = zlib.deflateSync(packed);
    expect(check(pdf(...streams, [`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${objectStream.length} >>`, objectStream]))).toThrow(PAGE_CAP);
    // The same two streams on two pages are each under it.
    expect(checkPdfInflate(pdf(...streams, ['<< /Type /Page /Contents 1 0 R >>', undefined], ['<< /Type /Page /Contents 2 0 R >>', undefined]), 'x.pdf', CAPS).inflated).toBe(40_000_000);
  });

  it('holds an image to the file cap, not the one-stream cap', async () => {
    const image = pdf([`<< /Subtype /Image /Width 1 /Height 1 /Filter /FlateDecode >>`, await deflatedZeros(50)]);
    expect(checkPdfInflate(image, 'x.pdf', CAPS).inflated).toBe(50_000_000);
    expect(check(image, { ...CAPS, maxInflatedBytes: 40_000_000 })).toThrow(
      'x.pdf inflates to more than 40 MB (a PDF bomb, or far more than a document needs); it was stopped there (KNOWLEDGE_PDF_MAX_INFLATED_BYTES).');
  });
});
