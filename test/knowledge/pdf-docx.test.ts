/**
 * PDF and Word documents, made by real writers in the test (pdf-lib, docx) and read by the real parser
 * in its worker process: pages kept as locations, headings kept, and every hostile or unreadable file
 * refused with its reason and nothing stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFromBytes, documentFromFile, documentFromUrl, KnowledgeInputError, type KnowledgeBase } from '../../src/knowledge/index.js';
import { startLocalServer } from '../tools/helpers/local-server.js';
import { createDocumentParser, type DocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { tempDir } from '../state/helpers/targets.js';
import { knowledgeTargets, openOn, type OpenedKnowledge } from './helpers/targets.js';
import { makeBigDocx, makeDocx, makeDocxBomb, makeDocxSpreadBomb, makeManyPages, makePdf, makePdfBomb, makeScannedPdf } from './helpers/make-files.js';

const RULEBOOK = [
  'Quest Rulebook\nChapter one: setting up the board.\nShuffle the tile deck and deal five tiles to each player.',
  'Chapter two: combat.\nA dragon attack is resolved by rolling three dice; a total above twelve slays the dragon.',
  'Chapter three: scoring.\nEach gem is worth two points at the end of the game.',
];
const MAX = 1_000_000;
const pdfDoc = (name: string, bytes: Uint8Array) => documentFromBytes({ name, bytes, source: `upload/${name}`, maxFileBytes: MAX, maxUploadBytes: 30_000_000 });

async function refusal(kb: KnowledgeBase, collection: string, name: string, bytes: Uint8Array): Promise<string> {
  const error = await kb.add(collection, pdfDoc(name, bytes)).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(KnowledgeInputError);
  expect(await kb.list(collection)).toEqual([]);
  return (error as Error).message;
}

for (const target of await knowledgeTargets('kb-pdf')) {
  describe.runIf(target.available)(`PDF pages on ${target.kind}`, () => {
    let opened: OpenedKnowledge;
    beforeAll(async () => (opened = await openOn(target, 'pdf')));
    afterAll(() => opened?.cleanup());

    it('a three-page PDF is found page by page: the dragon passage is on p. 2, and progress counts its pages', async () => {
      const progress: string[] = [];
      const file = await makePdf(RULEBOOK, 'Quest Rulebook');
      const result = await opened.kb.add('pdf', pdfDoc('rulebook.pdf', file), {
        onProgress: (p) => progress.push(`${p.stage} ${p.done}/${p.total} ${p.unit}`),
      });
      expect(result.status).toBe('added');
      expect(result.document).toMatchObject({ title: 'Quest Rulebook', format: 'pdf', passages: 3, source: 'upload/rulebook.pdf' });
      // What the caps count is the text kept, not the file.
      expect(result.document.bytes).toBe(Buffer.byteLength(RULEBOOK.join(''), 'utf8'));
      expect(file.length).toBeGreaterThan(result.document.bytes * 3);
      expect(progress).toEqual(['reading 1/3 pages', 'reading 2/3 pages', 'reading 3/3 pages']);
      const [hit] = await opened.kb.search('pdf', 'how do I slay the dragon');
      expect(hit).toMatchObject({ title: 'Quest Rulebook', location: 'p. 2' });
      expect(hit!.text).toContain('rolling three dice');
      expect((await opened.kb.search('pdf', 'gem points'))[0]!.location).toBe('p. 3');
      // The same file again is not read again.
      expect((await opened.kb.add('pdf', pdfDoc('rulebook.pdf', file))).status).toBe('unchanged');
    });
  });
}

describe('hostile and unreadable files', () => {
  let opened: OpenedKnowledge;
  let parser: DocumentParser;
  beforeAll(async () => {
    const [sqlite] = await knowledgeTargets('kb-hostile');
    // Tight caps, so the hostile files are stopped in seconds.
    parser = createDocumentParser({ timeoutMs: 4_000, maxMemoryMb: 256, maxPages: 1_000, maxInflatedBytes: 50_000_000 });
    opened = await openOn(sqlite!, 'hostile', { parser, limits: { maxFileBytes: MAX, maxUploadBytes: 10_000_000, maxBytes: 50_000_000 } });
  });
  afterAll(async () => {
    await opened?.cleanup();
    await parser?.close();
  });

  it('a scanned PDF (pages that are only pictures of text) is refused as having no text layer', async () => {
    expect(await refusal(opened.kb, 'scan', 'scan.pdf', await makeScannedPdf(2))).toBe(
      'scan.pdf has no text layer (it looks like a scan: its 2 pages are images); run OCR on it first, or add a PDF with selectable text.');
  });

  it('a PDF bomb (2 MB inflating to 2 GB) is stopped at the inflate cap, and the next PDF is read', async () => {
    // Counted before pdf.js reads it (until issue 43 it was stopped only by the time or the heap limit).
    const message = await refusal(opened.kb, 'bomb', 'bomb.pdf', await makePdfBomb(20, 100));
    expect(message).toBe('bomb.pdf has a stream that inflates to more than 64 MB (a PDF bomb, or far more than a page needs); it was stopped there (KNOWLEDGE_PDF_MAX_PAGE_BYTES).');
    const after = await opened.kb.add('bomb', pdfDoc('after.pdf', await makePdf(['After the bomb, a page about lighthouses.'])));
    expect(after.document.passages).toBe(1);
  }, 30_000);

  it('a PDF of 10,000 pages is refused at the page cap before any page is read', async () => {
    expect(await refusal(opened.kb, 'pages', 'huge.pdf', await makeManyPages(10_000))).toBe('huge.pdf has 10,000 pages; a PDF may have at most 1,000 (KNOWLEDGE_MAX_PAGES).');
    // From the page count, before reading: not one page read (no progress), as the parser itself says.
    const progress: number[] = [];
    const error = await parser.parse('pdf', await makeManyPages(1_500), { name: 'long.pdf', maxTextBytes: MAX, onProgress: (done) => progress.push(done) }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('long.pdf has 1,500 pages; a PDF may have at most 1,000 (KNOWLEDGE_MAX_PAGES).');
    expect(progress).toEqual([]);
  }, 30_000);

  it('a .docx zip bomb is stopped while inflating, at the inflate cap', async () => {
    expect(await refusal(opened.kb, 'zip', 'bomb.docx', await makeDocxBomb(120))).toMatch(/^bomb\.docx unpacks to more than 50 MB \(a zip bomb/);
  }, 30_000);

  it('a .docx zip bomb spread over many entries, each under the inflate cap, is stopped at the cap for the whole file', async () => {
    // Twelve entries of 10 MB: each far under the 50 MB cap, together 120 MB.
    expect(await refusal(opened.kb, 'spread', 'spread.docx', await makeDocxSpreadBomb(12, 10))).toBe(
      'spread.docx unpacks to more than 50 MB (a zip bomb, or far more than a document needs); it was stopped there.');
  }, 30_000);

  it('a 20 MB .docx is refused at KNOWLEDGE_MAX_UPLOAD_BYTES, from its size on disk before it is read', async () => {
    const file = path.join(tempDir('kb-big'), 'big.docx');
    fs.writeFileSync(file, await makeBigDocx(20));
    const error = await documentFromFile(file, { maxFileBytes: MAX, maxUploadBytes: 10_000_000 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${file} is 20 MB; a PDF or Word file may be at most 10 MB (KNOWLEDGE_MAX_UPLOAD_BYTES).`);
    // Handed in as bytes anyway, the knowledge base refuses it as well.
    const bytes = fs.readFileSync(file);
    const direct = await opened.kb.add('big', { source: 'upload/big.docx', format: 'docx', content: '', data: bytes }).catch((e: unknown) => e);
    expect((direct as Error).message).toBe('upload/big.docx is 20 MB; a PDF or Word file may be at most 10 MB (KNOWLEDGE_MAX_UPLOAD_BYTES).');
    expect(await opened.kb.list('big')).toEqual([]);
  });

  it('a file named .pdf that is not one, and a .docx that is a zip of something else, are refused', async () => {
    expect(() => pdfDoc('notes.pdf', Buffer.from('# just markdown'))).toThrow(/notes\.pdf is not a PDF file, whatever its name says/);
    const { zipSync } = await import('fflate');
    expect(await refusal(opened.kb, 'fake', 'photos.docx', zipSync({ 'a.txt': new TextEncoder().encode('hello') }))).toBe('photos.docx is not a Word document (it has no word/document.xml).');
  });
});

describe('a PDF by URL', () => {
  it('is added like an uploaded one, cited by its address, under the upload cap', async () => {
    const file = await makePdf(RULEBOOK, 'Quest Rulebook');
    const server = await startLocalServer({ '/rules.pdf': (_req, res) => res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(Buffer.from(file)) });
    const [sqlite] = await knowledgeTargets('kb-url-pdf');
    const opened = await openOn(sqlite!, 'urlpdf');
    try {
      const url = `${server.origin}/rules.pdf`;
      const doc = await documentFromUrl(url, { userAgent: 't', maxFileBytes: 1_000, maxUploadBytes: 1_000_000, allowLoopbackForTests: true });
      expect(doc).toMatchObject({ format: 'pdf', source: url, link: url });
      const result = await opened.kb.add('u', doc);
      expect(result.document).toMatchObject({ title: 'Quest Rulebook', passages: 3, link: url });
      await expect(documentFromUrl(url, { userAgent: 't', maxFileBytes: 100, maxUploadBytes: 500, allowLoopbackForTests: true }))
        .rejects.toThrow(`${url} is larger than 500 bytes, the most a document may be (KNOWLEDGE_MAX_UPLOAD_BYTES).`);
    } finally {
      await opened.cleanup();
      await server.close();
    }
  });
});

describe('Word documents', () => {
  let opened: OpenedKnowledge;
  beforeAll(async () => {
    const [sqlite] = await knowledgeTargets('kb-docx');
    opened = await openOn(sqlite!, 'docx');
  });
  afterAll(() => opened?.cleanup());

  it('keeps the headings of a .docx as the heading path of its passages', async () => {
    const bytes = await makeDocx([
      { heading: 1, text: 'Volunteer handbook' },
      { heading: 2, text: 'Shifts' },
      { text: 'Each volunteer takes two shifts a month at the community garden.' },
      { heading: 3, text: 'Swapping a shift' },
      { text: 'Post in the swap channel at least two days before your shift.' },
      { heading: 2, text: 'Tools' },
      { text: 'The shed key hangs behind the blue door.' },
    ]);
    const result = await opened.kb.add('docx', documentFromBytes({ name: 'handbook.docx', bytes, source: 'upload/handbook.docx', maxFileBytes: MAX, maxUploadBytes: MAX }));
    expect(result.document).toMatchObject({ title: 'Volunteer handbook', format: 'docx', passages: 3 });
    expect((await opened.kb.search('docx', 'swap shift'))[0]).toMatchObject({ headings: ['Shifts', 'Swapping a shift'] });
    expect((await opened.kb.search('docx', 'shed key'))[0]).toMatchObject({ headings: ['Tools'] });
    expect((await opened.kb.search('docx', 'shed key'))[0]!.location).toBeUndefined();
  });
});
