/**
 * A PDF's text, page by page, with pdf.js (through unpdf, which bundles it without a canvas or a
 * worker of its own). Runs inside the parser's worker process. Every stream is first decoded once,
 * counting, against the inflate caps (pdf.js's own decoding is bounded by nothing), then the page
 * count is checked before any page is read, the text is counted as it grows, and a file whose pages hold no text at all (a scan
 * without OCR) is refused with that reason rather than indexed as nothing.
 */
import { checkPdfInflate } from './pdf-inflate.js';
import { ParseRefusal, type ParseCaps, type ParsedPages } from './parse-types.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** Fewer characters than this in the whole file is no text layer, only stray marks. */
const MIN_TEXT_CHARS = 10;

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** Extract every page's text; `progress` is told after each page. */
export async function pdfPages(bytes: Uint8Array, name: string, caps: ParseCaps, progress: (done: number, total: number) => void): Promise<ParsedPages> {
  // Before pdf.js sees the file: opening it already decodes its cross-reference and object streams.
  checkPdfInflate(bytes, name, { maxInflatedBytes: caps.maxPdfInflatedBytes, maxPageBytes: caps.maxPdfPageBytes });
  const { getDocumentProxy } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // Nothing of the file runs: no eval'd font programs, no fonts loaded into a page that does not exist.
    pdf = await getDocumentProxy(bytes, { isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (/password/i.test(why)) throw new ParseRefusal(`${name} is protected by a password; add a copy without one.`);
    throw new ParseRefusal(`${name} could not be read as a PDF (${why.slice(0, TEXT_CAPS.echo)}).`);
  }
  const total = pdf.numPages;
  if (total > caps.maxPages) {
    throw new ParseRefusal(`${name} has ${total.toLocaleString('en-US')} pages; a PDF may have at most ${caps.maxPages.toLocaleString('en-US')} (KNOWLEDGE_MAX_PAGES).`);
  }
  const pages: string[] = [];
  let textBytes = 0;
  let chars = 0;
  for (let number = 1; number <= total; number++) {
    const page = await pdf.getPage(number);
    const content = await page.getTextContent();
    const text = (content.items as TextItem[]).map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : '')).join('');
    page.cleanup();
    textBytes += Buffer.byteLength(text, 'utf8');
    if (textBytes > caps.maxTextBytes) {
      throw new ParseRefusal(`${name} holds more than ${Math.round(caps.maxTextBytes / 1000).toLocaleString('en-US')} KB of text (by page ${number}); a document may hold at most that much (KNOWLEDGE_MAX_FILE_BYTES).`);
    }
    chars += text.replace(/\s+/g, '').length;
    pages.push(text);
    progress(number, total);
  }
  if (chars < MIN_TEXT_CHARS) {
    throw new ParseRefusal(`${name} has no text layer (it looks like a scan: its ${total === 1 ? 'page is an image' : `${total} pages are images`}); run OCR on it first, or add a PDF with selectable text.`);
  }
  const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
  const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
  await pdf.destroy();
  return { kind: 'pages', pages, title };
}
