/**
 * Real files for the knowledge tests, made by real writers: PDFs with pdf-lib (text pages, a scanned
 * page that is only an image, a bomb whose content streams inflate to gigabytes, ten thousand pages)
 * and Word files with the `docx` package (headings and paragraphs), plus zips built with fflate for
 * the hostile .docx cases.
 */
import zlib from 'node:zlib';
import { Resvg } from '@resvg/resvg-js';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { zipSync } from 'fflate';
import { PDFArray, PDFDocument, PDFName, StandardFonts } from 'pdf-lib';

/** A PDF with one page per string (lines split on \n), titled `title`. */
export async function makePdf(pages: string[], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  if (title) doc.setTitle(title);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 16, size: 11, font }));
  }
  return doc.save();
}

/** A "scanned" PDF: each page is a picture of text (rendered to PNG), with no text layer. */
export async function makeScannedPdf(pages: number): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="200"><rect width="600" height="200" fill="white"/>
    <text x="20" y="100" font-size="28" fill="black">Scanned rulebook page</text></svg>`;
  const png = new Resvg(svg, { font: { loadSystemFonts: false } }).render().asPng();
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(png);
  for (let i = 0; i < pages; i++) doc.addPage([600, 200]).drawImage(image, { x: 0, y: 0, width: 600, height: 200 });
  return doc.save();
}

/**
 * A PDF bomb: `pages` pages, each with its own content stream that inflates to `inflatedMb` MB of
 * blank content from a few hundred KB, so the file is small and reading it is not.
 */
export async function makePdfBomb(pages: number, inflatedMb: number): Promise<Uint8Array> {
  const compressed = zlib.deflateSync(Buffer.alloc(inflatedMb * 1_000_000, 0x20), { level: 9 });
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage();
    const stream = doc.context.stream(compressed, { Filter: 'FlateDecode' });
    page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  }
  return doc.save();
}

/**
 * Zeros (or another `fill` byte) deflated (zlib-wrapped, as PDF's FlateDecode wants) a megabyte at a
 * time, so a stream that inflates to a gigabyte is built without ever holding a gigabyte.
 */
export async function deflatedZeros(inflatedMb: number, fill = 0): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9, memLevel: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const megabyte = Buffer.alloc(1_000_000, fill);
  for (let i = 0; i < inflatedMb; i++) if (!deflate.write(megabyte)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/**
 * The outside trial's PDF bomb: a valid one-page PDF whose content stream inflates to `inflatedMb` MB
 * of zeros from about a thousandth of that, after a line of real text unless `text` is false.
 * `asImage` labels the stream an image (/Subtype /Image), which pdf.js ignores for a page's content;
 * `spaces` fills it with spaces, which pdf.js reads past (a page that is merely large, its text kept).
 */
export async function makeInflateBomb(inflatedMb: number, options: { text?: boolean; asImage?: boolean; spaces?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  if (options.text !== false) page.drawText('A page about lighthouses, and far more than it shows.', { x: 50, y: 780, size: 11, font });
  const dict = options.asImage ? { Filter: 'FlateDecode', Subtype: 'Image', Width: 1, Height: 1 } : { Filter: 'FlateDecode' };
  const bomb = doc.context.register(doc.context.stream(await deflatedZeros(inflatedMb, options.spaces ? 0x20 : 0), dict));
  // pdf-lib writes a drawn page's /Contents as an array already: the bomb joins it (an array inside
  // the array would be no content stream at all, and pdf.js would find no text on the page).
  const contents = page.node.get(PDFName.of('Contents'));
  if (contents instanceof PDFArray) contents.push(bomb);
  else page.node.set(PDFName.of('Contents'), doc.context.obj(contents ? [contents, bomb] : [bomb]));
  return doc.save();
}

/** A PDF of `pages` empty pages. */
export async function makeManyPages(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return doc.save();
}

/** One block of a Word file: a heading of a level, or a paragraph. */
export type DocxBlock = { heading: 1 | 2 | 3; text: string } | { text: string };

/** A .docx with those headings and paragraphs, written by the `docx` package. */
export async function makeDocx(blocks: DocxBlock[]): Promise<Buffer> {
  const levels = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;
  const children = blocks.map((b) => ('heading' in b ? new Paragraph({ text: b.text, heading: levels[b.heading] }) : new Paragraph({ text: b.text })));
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

/** A real .docx with an extra entry of `megabytes` MB of incompressible bytes (a file that big on disk). */
export async function makeBigDocx(megabytes: number): Promise<Buffer> {
  const { unzipSync } = await import('fflate');
  const entries = unzipSync(await makeDocx([{ heading: 1, text: 'Big' }, { text: 'A file padded with media.' }]));
  const noise = new Uint8Array(megabytes * 1_000_000);
  for (let at = 0; at < noise.length; at += 65_536) crypto.getRandomValues(noise.subarray(at, at + 65_536));
  return Buffer.from(zipSync({ ...entries, 'word/media/noise.bin': [noise, { level: 0 }] }));
}

/**
 * A zip bomb spread thin: `entries` extra entries of `megabytes` MB of zeros each, every one under an
 * inflate cap that their sum is far over.
 */
export async function makeDocxSpreadBomb(entries: number, megabytes: number): Promise<Buffer> {
  const { unzipSync } = await import('fflate');
  const files: Record<string, Uint8Array | [Uint8Array, { level: 1 }]> = unzipSync(await makeDocx([{ heading: 1, text: 'Spread' }, { text: 'Nothing to see.' }]));
  const zeros = new Uint8Array(megabytes * 1_000_000);
  for (let i = 0; i < entries; i++) files[`word/media/zeros-${i}.bin`] = [zeros, { level: 1 }];
  return Buffer.from(zipSync(files));
}

/** A small .docx whose one extra entry inflates to `megabytes` MB of zeros (a zip bomb). */
export async function makeDocxBomb(megabytes: number): Promise<Buffer> {
  const { unzipSync } = await import('fflate');
  const entries = unzipSync(await makeDocx([{ heading: 1, text: 'Bomb' }, { text: 'Nothing to see.' }]));
  return Buffer.from(zipSync({ ...entries, 'word/media/zeros.bin': [new Uint8Array(megabytes * 1_000_000), { level: 1 }] }));
}
