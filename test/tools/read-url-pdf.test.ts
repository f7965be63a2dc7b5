/**
 * A PDF at a URL, read by `read_url` like an added PDF: in the document parser's worker, under its
 * caps, page by page with the page numbers shown; one over the size cap is refused with the reason.
 * The bot's read_url (built by the core from the configuration) reads PDFs under the knowledge
 * settings: the page cap and the PDF inflate caps an added PDF meets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tool.js';
import { loadConfig } from '../../src/config.js';
import { createCore } from '../../src/core.js';
import { createDocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { createReadUrlTool } from '../../tools/read-url.js';
import { makeInflateBomb, makeManyPages, makePdf } from '../knowledge/helpers/make-files.js';
import { startLocalServer, type LocalServer } from './helpers/local-server.js';
import { toolContext } from './helpers/tool-context.js';

describe('read_url on a PDF', () => {
  let server: LocalServer;
  const parser = createDocumentParser({ maxPages: 100 });
  const pages = createDocumentParser();
  beforeAll(async () => {
    const pdf = await makePdf(['Opening hours\nThe museum opens at nine.', 'Tickets\nAdults pay twelve euros; children enter free.'], 'Museum guide');
    const many = await makeManyPages(500);
    const serve = (body: Uint8Array) => ((_req, res) => res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(Buffer.from(body))) as Parameters<LocalServer['route']>[1];
    // A page whose content inflates to 2 MB (its text, then spaces): under the shipped 64 MB, over the 1 MB set below.
    const inflating = await makeInflateBomb(2, { spaces: true });
    server = await startLocalServer({ '/guide.pdf': serve(pdf), '/big.pdf': serve(Buffer.alloc(3_000_000, 0x25)), '/many.pdf': serve(many), '/inflating.pdf': serve(inflating) });
  });
  afterAll(async () => {
    await server?.close();
    await parser.close();
    await pages.close();
  });
  const tool = (maxBytes = 2_000_000) => createReadUrlTool({ userAgent: 'tests', allowLoopbackForTests: true, pages, pdf: { parser, maxBytes } });

  it('reads its pages with their numbers, cited by the PDF title', async () => {
    const { output, sources } = (await tool().run({ url: `${server.origin}/guide.pdf` }, toolContext())) as ToolOutput;
    expect(output).toBe(`Title: Museum guide\nURL: ${server.origin}/guide.pdf\nPages: 2\n\n[p. 1]\nOpening hours\nThe museum opens at nine.\n\n[p. 2]\nTickets\nAdults pay twelve euros; children enter free.`);
    expect(sources).toEqual([{ title: 'Museum guide', url: `${server.origin}/guide.pdf` }]);
  });

  it('refuses a PDF over its size cap and one over the page cap, saying which', async () => {
    await expect(tool().run({ url: `${server.origin}/big.pdf` }, toolContext())).rejects.toThrow(`The PDF at ${server.origin}/big.pdf is larger than 2 MB, the most read_url reads.`);
    await expect(tool().run({ url: `${server.origin}/many.pdf` }, toolContext())).rejects.toThrow('many.pdf has 500 pages; a PDF may have at most 100 (KNOWLEDGE_MAX_PAGES).');
  });

  it('as the bot builds it, reads a PDF under KNOWLEDGE_MAX_PAGES and the PDF inflate caps, as an added one is read', async () => {
    // Settings lowered from .env.example's so that small files meet them: 50 pages, 1 MB for a page's content.
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', KNOWLEDGE_MAX_PAGES: '50', KNOWLEDGE_PDF_MAX_PAGE_BYTES: '1000000' };
    const core = await createCore(loadConfig({ needDiscord: false, dotenvDir: false }, env), { toolbox: { readUrl: { allowLoopbackForTests: true } } });
    try {
      const readUrl = core.toolbox.tools.find((t) => t.name === 'read_url')!;
      await expect(readUrl.run({ url: `${server.origin}/many.pdf` }, toolContext())).rejects.toThrow('many.pdf has 500 pages; a PDF may have at most 50 (KNOWLEDGE_MAX_PAGES).');
      await expect(readUrl.run({ url: `${server.origin}/inflating.pdf` }, toolContext())).rejects.toThrow(
        'inflating.pdf has a stream that inflates to more than 1 MB (a PDF bomb, or far more than a page needs); it was stopped there (KNOWLEDGE_PDF_MAX_PAGE_BYTES).');
      // Under the shipped caps the same file is read.
      expect(((await tool().run({ url: `${server.origin}/inflating.pdf` }, toolContext())) as ToolOutput).output).toContain('A page about lighthouses');
    } finally {
      await core.close();
    }
  }, 30_000);

  it('without a parser, a PDF is refused as before (not a text type)', async () => {
    await expect(createReadUrlTool({ userAgent: 'tests', allowLoopbackForTests: true, pages }).run({ url: `${server.origin}/guide.pdf` }, toolContext())).rejects.toThrow(/application\/pdf/);
  });
});
