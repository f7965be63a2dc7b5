/**
 * PDF bombs against the real parser in its worker process (issue 43: a 1 MB PDF inflating to 1 GB took
 * the reader to 2.4 GB and was refused after 18 s as "no text layer"). The bombs are built here: valid
 * PDFs (pdf-lib) whose content stream is deflated zeros. What is asserted: the true reason, nothing
 * stored, and the worker's resident memory as the host sampled it from /proc. How fast the refusal
 * comes is the bench's to say (`npm run bench pdf-bomb`), not a timed assertion here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFromBytes, KnowledgeInputError } from '../../src/knowledge/index.js';
import { loadConfig } from '../../src/config.js';
import { parserOptionsFrom } from '../../src/knowledge/open-configured.js';
import { createDocumentParser, type DocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { productionDefaults } from '../discord/harness.js';
import { knowledgeTargets, openOn, type OpenedKnowledge } from './helpers/targets.js';
import { makeInflateBomb, makePdf, makePdfBomb } from './helpers/make-files.js';

const MB = 1_048_576;
const pdfDoc = (name: string, bytes: Uint8Array) => documentFromBytes({ name, bytes, source: `upload/${name}`, maxFileBytes: 1_000_000, maxUploadBytes: 10_000_000 });
const onLinux = process.platform === 'linux';

describe('PDF bombs, with the production caps', () => {
  let opened: OpenedKnowledge;
  let parser: DocumentParser;
  beforeAll(async () => {
    const [sqlite] = await knowledgeTargets('kb-pdf-bomb');
    // The settings .env.example ships, read and mapped as the bot reads and maps them.
    const { knowledge } = loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', ...productionDefaults() });
    parser = createDocumentParser(parserOptionsFrom(knowledge));
    opened = await openOn(sqlite!, 'bomb', { parser });
  });
  afterAll(async () => {
    await opened?.cleanup();
    await parser?.close();
  });

  /** Refused, and nothing of it stored (each file in a collection of its own name). */
  const refusal = async (name: string, bytes: Uint8Array) => {
    const error = await opened.kb.add(name, pdfDoc(name, bytes)).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(KnowledgeInputError);
    expect(await opened.kb.list(name)).toEqual([]);
    return (error as Error).message;
  };

  it('a 1 MB PDF whose one content stream inflates to 1 GB is refused for what it inflates to, the reader staying under 800 MB', async () => {
    const bomb = await makeInflateBomb(1_000);
    expect(bomb.length).toBeLessThan(1_100_000);
    expect(await refusal('bomb.pdf', bomb)).toBe(
      'bomb.pdf has a stream that inflates to more than 64 MB (a PDF bomb, or far more than a page needs); it was stopped there (KNOWLEDGE_PDF_MAX_PAGE_BYTES).');
    const peak = parser.stats().lastPeakRssBytes;
    if (onLinux) {
      expect(peak).toBeGreaterThan(10 * MB);
      // The bot's processes: the reader at its highest, and this one (the bot's side) as it is now.
      expect(peak! + process.memoryUsage().rss).toBeLessThan(800 * MB);
    }
    // The reader is still of use: a real PDF is read after it.
    const after = await opened.kb.add('bomb', pdfDoc('after.pdf', await makePdf(['After the bomb, a page about lighthouses.'])));
    expect(after.document.passages).toBe(1);
  }, 60_000);

  it('a bomb spread over pages, each stream under the one-stream cap, is refused at the whole file cap', async () => {
    expect(await refusal('spread.pdf', await makePdfBomb(5, 60))).toBe(
      'spread.pdf inflates to more than 256 MB (a PDF bomb, or far more than a document needs); it was stopped there (KNOWLEDGE_PDF_MAX_INFLATED_BYTES).');
  }, 60_000);

  it('a content stream that calls itself an image is still counted for its page', async () => {
    // pdf.js reads a page's /Contents whatever their /Subtype says, so the page cap holds them.
    expect(await refusal('labelled.pdf', await makeInflateBomb(250, { asImage: true }))).toBe(
      'labelled.pdf has a page whose content inflates to more than 64 MB, its content streams together (a PDF bomb, or far more than a page needs) (KNOWLEDGE_PDF_MAX_PAGE_BYTES).');
  }, 60_000);
});

describe.runIf(onLinux)('the reader bounded as a process', () => {
  let opened: OpenedKnowledge;
  let parser: DocumentParser;
  beforeAll(async () => {
    const [sqlite] = await knowledgeTargets('kb-pdf-rss');
    // The inflate caps raised out of the way, so the bombs reach pdf.js as one the check cannot read
    // would (an encrypted file's streams); 256 MB of memory instead of 512, so they are smaller.
    parser = createDocumentParser({ maxMemoryMb: 256, maxPdfInflatedBytes: 4_000_000_000, maxPdfPageBytes: 4_000_000_000 });
    opened = await openOn(sqlite!, 'rss', { parser });
  });
  afterAll(async () => {
    await opened?.cleanup();
    await parser?.close();
  });

  it('a bomb that gets past the inflate caps is killed at the resident memory limit with that reason, and a fresh worker reads the next file', async () => {
    const error = await opened.kb.add('rss', pdfDoc('image.pdf', await makeInflateBomb(250))).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "Reading image.pdf needed more than the reader's 256 MB of memory and was stopped: it unpacks to far more than it shows (a PDF or zip bomb?).");
    expect(await opened.kb.list('rss')).toEqual([]);
    const { starts, lastPeakRssBytes } = parser.stats();
    // Sampled every 25 ms, so caught within what a decoder fills in that time.
    expect(lastPeakRssBytes).toBeGreaterThan(256 * MB);
    expect(lastPeakRssBytes).toBeLessThan(512 * MB);
    const after = await opened.kb.add('rss', pdfDoc('after.pdf', await makePdf(['After the kill, a page about harbours.'])));
    expect(after.document.passages).toBe(1);
    expect(parser.stats().starts).toBe(starts + 1);
  }, 60_000);

  it('a refusal that grew the reader restarts it, and a file that did not keeps the warm worker', async () => {
    await opened.kb.add('grown', pdfDoc('warm.pdf', await makePdf(['A warm reader reads this.'])));
    const warm = parser.stats();
    await opened.kb.add('grown', pdfDoc('again.pdf', await makePdf(['And this, in the same process.'])));
    expect(parser.stats()).toMatchObject({ starts: warm.starts, pid: warm.pid });
    // 30 MB of content: pdf.js decodes it (into memory outside its heap) before finding no text.
    const error = await opened.kb.add('grown', pdfDoc('grown.pdf', await makeInflateBomb(30, { text: false }))).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^grown\.pdf has no text layer/);
    expect(parser.stats().lastPeakRssBytes).toBeGreaterThan(warm.restingRssBytes! + 30 * MB);
    expect(parser.stats().pid).toBeUndefined();
    await opened.kb.add('grown', pdfDoc('fresh.pdf', await makePdf(['A fresh reader reads this.'])));
    expect(parser.stats().starts).toBe(warm.starts + 1);
  }, 60_000);
});
