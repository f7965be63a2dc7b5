/**
 * Pages read by their article (Readability over linkedom): a news-style page keeps its title, byline,
 * headings and body and loses its navigation, sidebar, comments and footer, in `read_url` and in the
 * knowledge base alike; a page with no article falls back to the single-pass converter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tool.js';
import { createDocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { readArticle } from '../../src/knowledge/parse/html-article.js';
import { prepareParsed } from '../../src/knowledge/prepare-parsed.js';
import { createReadUrlTool } from '../../tools/read-url.js';
import { NEWS_PAGE } from './fixtures/news-page.js';
import { startLocalServer, type LocalServer } from './helpers/local-server.js';
import { toolContext } from './helpers/tool-context.js';

const NAVIGATION = ['Sport', 'Subscribe today', 'Most read', 'Ten best beaches', 'Great news', 'All rights reserved'];
// Pages and HTML documents are read in the document reader's worker, as the bot reads them.
const reader = createDocumentParser();
afterAll(() => reader.close());

describe('readArticle', () => {
  it('finds the article of a news page: its title and byline, its headings, none of the page around it', () => {
    const article = readArticle(NEWS_PAGE, 'https://gazette.example/harbour')!;
    expect(article.title).toBe('Harbour bridge reopens after storm repairs');
    expect(article.byline).toBe('By Priya Raman, transport correspondent');
    expect(article.html).toContain('What was repaired');
    for (const word of NAVIGATION) expect(article.html).not.toContain(word);
  });

  it('finds no article in a short page or a list of links, and in markup past its element cap', () => {
    expect(readArticle('<p>Just one line.</p>')).toBeUndefined();
    expect(readArticle(`<ul>${'<li><a href="/x">Link</a></li>'.repeat(50)}</ul>`)).toBeUndefined();
    expect(readArticle(`<article>${'<p>Some words that make up a paragraph of a real article here.</p>'.repeat(40_000)}</article>`)).toBeUndefined();
  });
});

describe('read_url by the article', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer({
      '/harbour': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(NEWS_PAGE),
      '/short': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><head><title>Short</title></head><body><nav>Menu</nav><p>Only a line.</p></body></html>'),
    });
  });
  afterAll(() => server?.close());
  const read = async (path: string) =>
    ((await createReadUrlTool({ userAgent: 'tests', allowLoopbackForTests: true, pages: reader }).run({ url: `${server.origin}${path}` }, toolContext())) as ToolOutput).output;

  it('returns the title, the byline and the main text with its headings, without navigation, sidebar, comments or footer', async () => {
    const output = await read('/harbour');
    expect(output.startsWith(`Title: Harbour bridge reopens after storm repairs\nBy Priya Raman, transport correspondent\nURL: ${server.origin}/harbour\n\n`)).toBe(true);
    expect(output).toContain('## What was repaired');
    expect(output).toContain('## Tolls and timetables');
    expect(output).toContain('forty metres of steel decking');
    for (const word of NAVIGATION) expect(output).not.toContain(word);
  });

  it('falls back to the converter where there is no article', async () => {
    expect(await read('/short')).toBe(`Title: Short\nURL: ${server.origin}/short\n\nOnly a line.`);
  });
});

describe('HTML documents in the knowledge base', () => {
  it('index the article with its byline and headings, not the navigation', async () => {
    const prepared = await prepareParsed({ source: 'https://gazette.example/harbour', format: 'html', content: NEWS_PAGE }, reader, { maxTextBytes: 1_000_000 });
    expect(prepared.title).toBe('Harbour bridge reopens after storm repairs');
    const all = prepared.passages.map((p) => p.text).join('\n');
    expect(prepared.passages[0]!.text.startsWith('By Priya Raman, transport correspondent')).toBe(true);
    expect(prepared.passages.map((p) => p.headings)).toContainEqual(['What was repaired']);
    for (const word of NAVIGATION) expect(all).not.toContain(word);
  });
});
