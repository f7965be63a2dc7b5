/**
 * The `read_url` tool: "what does this link say?". It reaches the open web from the bot's machine, so
 * it is off by default (`network: true`) and every request goes through `safeGet`, which refuses
 * anything but public addresses on every hop. It uses node:http rather than `ctx.fetch` on purpose:
 * fetch cannot be made to connect to the exact address that was checked.
 *
 * A page is markup anyone can write, and finding its article (Readability over a DOM) can take seconds
 * on one built for it, so HTML is read in a document reader's worker (`pages`), never on the bot's main
 * thread, under that reader's time budget; a page too deep or too large to look for an article in is
 * read as plain text, and the model is told why.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../src/agent/tool.js';
import { ToolError } from '../src/errors.js';
import type { DocumentParser } from '../src/knowledge/parse/document-parser.js';
import { markdownHeadings, withoutHeadingMarks } from '../src/knowledge/parse/heading-marks.js';
import { bylineLine, capText, tidyWhitespace } from '../src/knowledge/parse/html-text.js';
import { safeGet, type HostLookup, type SafeResponse } from '../src/net/safe-http.js';

export interface ReadUrlOptions {
  userAgent: string;
  /** Reads HTML pages in its worker, with its time budget: a lane of read_url's own (see tools/index.ts). */
  pages: DocumentParser;
  /**
   * Tests only: allow loopback addresses so a test can read a server it started. There is no
   * environment variable or config field for this; code has to pass it explicitly.
   */
  allowLoopbackForTests?: boolean;
  /** Tests only: resolve host names without DNS (e.g. make a public-looking name point at 10.0.0.1). */
  lookup?: HostLookup;
  /** Most bytes of a page read (default 1 MB, decompressed); the rest is never downloaded. */
  maxBytes?: number;
  /** Deadline for the whole exchange, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Longest text returned to the model (default 4,000 characters). */
  maxChars?: number;
  /**
   * Pages given instead of the network, by URL (an evaluation's fixed pages, `npm run eval`): the page's
   * HTML is read as a fetched one is. Undefined for a URL: it is fetched.
   */
  givenPages?: (url: string) => string | undefined;
  /** Reads a PDF at the URL as the knowledge base reads an added one (its worker, its caps); none: PDFs refused. */
  pdf?: { parser: DocumentParser; maxBytes?: number };
}

const TEXT_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/json', 'text/csv']);

const parameters = z.object({
  url: z.string().max(2_048).describe('The full http(s) address of the page, e.g. https://example.com/article.'),
});

/** The `read_url` tool. */
export function createReadUrlTool(options: ReadUrlOptions): ToolDefinition<z.infer<typeof parameters>> {
  const maxBytes = options.maxBytes ?? 1_000_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxChars = options.maxChars ?? 4_000;
  return defineTool({
    name: 'read_url',
    description:
      'Read a public web page and return its title, byline and main text with its headings (size-limited). ' +
      'Use it when the user gives a link or asks what a page says. Only http(s) pages with text content' +
      (options.pdf ? ', and PDFs (with their page numbers),' : '') + ' can be read.',
    parameters,
    textParameter: 'url',
    aliases: ['browse', 'fetch_url', 'open_url'],
    examples: ['https://en.wikipedia.org/wiki/ReAct', 'https://www.example.com/'],
    network: true,
    async run({ url }, ctx) {
      const pdfBytes = options.pdf ? options.pdf.maxBytes ?? 10_000_000 : 0;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      const given = options.givenPages?.(url.trim());
      const response = given !== undefined ? givenPage(url.trim(), given) : await safeGet(url.trim(), {
        userAgent: options.userAgent,
        allowLoopback: options.allowLoopbackForTests === true,
        lookup: options.lookup,
        // A PDF's cap is its own; a page's is checked below, as before.
        maxBytes: Math.max(maxBytes, pdfBytes),
        maxRedirects: 5,
        accept: (mediaType) => TEXT_TYPES.has(mediaType) || (pdfBytes > 0 && mediaType === 'application/pdf'),
        signal,
      });
      if (response.mediaType === 'application/pdf') return readPdf(response.url, response.body, response.truncated, options.pdf!.parser, pdfBytes, maxChars, ctx.signal);
      const truncated = response.truncated || response.body.length > maxBytes;
      const decoded = decode(response.body.subarray(0, maxBytes), response.charset);
      const isHtml = response.mediaType === 'text/html' || response.mediaType === 'application/xhtml+xml';
      const { title, byline, text, plainBecause } = isHtml
        ? await pageText(options.pages, decoded, response.url, maxBytes, ctx.signal)
        : { title: undefined, byline: undefined, text: tidyWhitespace(decoded), plainBecause: undefined };
      const capped = capText(text, maxChars);
      const notes = [
        truncated ? `only the first ${Math.round(maxBytes / 1000)} KB of the page were read` : '',
        capped.cut ? `text cut to ${maxChars} characters` : '',
        plainBecause ? `read as plain text, not by its article: ${plainBecause}` : '',
      ].filter(Boolean);
      const body = capped.text || '(The page has no readable text; it may need JavaScript to show its content.)';
      const output = [
        title ? `Title: ${title}` : undefined,
        byline ? bylineLine(byline) : undefined,
        `URL: ${response.url}`,
        '',
        body,
        notes.length ? `\n[${notes.join('; ')}]` : undefined,
      ].filter((line) => line !== undefined).join('\n');
      return { output, sources: [{ title: title ?? response.url, url: response.url }] };
    },
  });
}

/**
 * A page's article (title, byline, main text with its headings as `##` lines) where Readability finds
 * one; the whole page through the single-pass converter where it does not. Read in the page reader's
 * worker; a page it refuses or stops becomes an error the model reads.
 */
async function pageText(reader: DocumentParser, html: string, url: string, maxBytes: number, signal: AbortSignal) {
  let parsed;
  try {
    parsed = await reader.readHtml(html, { name: url, maxTextBytes: maxBytes, url, article: true, signal });
  } catch (error) {
    throw new ToolError((error as Error).message, { cause: error });
  }
  // Headings become `##` lines in an article; a page read whole keeps the converter's text, unmarked.
  const text = tidyWhitespace(parsed.article ? markdownHeadings(parsed.text) : withoutHeadingMarks(parsed.text));
  return { title: parsed.title, byline: parsed.byline, text, plainBecause: parsed.plainBecause };
}

/** A PDF read in the document parser's worker, page by page, marked with its page numbers. */
async function readPdf(url: string, body: Buffer, truncated: boolean, parser: DocumentParser, maxBytes: number, maxChars: number, signal: AbortSignal) {
  if (truncated || body.length > maxBytes) throw new ToolError(`The PDF at ${url} is larger than ${Math.round(maxBytes / 1_000_000)} MB, the most read_url reads.`);
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'document.pdf');
  let parsed;
  try {
    parsed = await parser.parse('pdf', body, { name, maxTextBytes: 1_000_000, signal });
  } catch (error) {
    throw new ToolError((error as Error).message, { cause: error });
  }
  if (parsed.kind !== 'pages') throw new ToolError(`${name} is not a PDF.`);
  const text = parsed.pages.map((page, i) => (tidyWhitespace(page) ? `[p. ${i + 1}]\n${tidyWhitespace(page)}` : '')).filter(Boolean).join('\n\n');
  const capped = capText(text, maxChars);
  const title = parsed.title ?? name;
  const note = capped.cut ? `\n\n[text cut to ${maxChars} characters of ${parsed.pages.length} pages]` : '';
  return { output: `Title: ${title}\nURL: ${url}\nPages: ${parsed.pages.length}\n\n${capped.text}${note}`, sources: [{ title, url }] };
}

/** A page given by URL (an evaluation's), as a fetched HTML page would arrive. */
function givenPage(url: string, html: string): SafeResponse {
  return { url, mediaType: 'text/html', charset: 'utf-8', body: Buffer.from(html, 'utf8'), truncated: false };
}

/** Bytes to text in the declared charset, UTF-8 when none (or an unknown one) is declared. */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
