/**
 * HTML to text, inside the document reader's worker: a web page or an HTML document by its article
 * where Readability finds one (markup whose size and shape let it look: see html-shape.ts), else all of
 * its text through the single-pass converter; a Word file's HTML (from mammoth) always the latter.
 * Headings come out marked, so the knowledge base keeps its sections and read_url its `##` lines.
 */
import { readArticle } from './html-article.js';
import { articleRefusal } from './html-shape.js';
import { htmlTitle, htmlToText } from './html-text.js';
import { markHtmlHeadings } from './heading-marks.js';
import type { ParsedText } from './parse-types.js';

/** Read `html`; with `article`, look for the page's article first (`url` resolves its links). */
export function readHtml(html: string, options: { url?: string; article: boolean }): ParsedText {
  const plainBecause = options.article ? articleRefusal(html) : undefined;
  const article = options.article && !plainBecause ? readArticle(html, options.url) : undefined;
  if (!article) {
    const { title, text } = htmlToText(markHtmlHeadings(html));
    return { kind: 'text', text, title, article: false, ...(plainBecause ? { plainBecause } : {}) };
  }
  const { text } = htmlToText(markHtmlHeadings(article.html));
  return { kind: 'text', text, title: article.title ?? htmlTitle(html), byline: article.byline, article: true };
}
