/**
 * A web page's article, found as Firefox's Reader View finds it: `@mozilla/readability` over a
 * `linkedom` DOM (a DOM built from the markup alone: no browser, no layout, nothing of the page runs).
 * It keeps the title, the byline and the main text with its headings, and drops navigation, sidebars,
 * comments and footers by scoring the page's blocks. Where it finds no article (a short page, a list of
 * links, markup that breaks it), the caller falls back to `htmlToText`, our single-pass converter.
 *
 * Building the DOM and scoring it cost far more than linear in the page's nesting, so this runs only in
 * the document reader's worker (see read-html.ts), on markup `articleRefusal` let through.
 */
import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { MAX_ARTICLE_ELEMENTS } from './html-shape.js';

/** What Readability found: the article's HTML (for the caller's own converter) and what it knows of it. */
export interface Article {
  title?: string;
  byline?: string;
  siteName?: string;
  /** The article's markup: headings, paragraphs, lists; scripts and page furniture gone. */
  html: string;
}

/** The article of `html`, or undefined when the page does not look like one (then use `htmlToText`). */
export function readArticle(html: string, url?: string): Article | undefined {
  try {
    const { document } = parseHTML(html);
    // Readability resolves links against the page's address; linkedom has none of its own.
    if (url && document.head && !document.querySelector('base')) {
      const base = document.createElement('base');
      base.setAttribute('href', url);
      document.head.appendChild(base);
    }
    if (!isProbablyReaderable(document as unknown as Document)) return undefined;
    // Readability gives up past this many elements (after the DOM is built: the shape check comes first).
    const article = new Readability(document as unknown as Document, { maxElemsToParse: MAX_ARTICLE_ELEMENTS, keepClasses: false }).parse();
    if (!article?.content || !article.textContent?.trim()) return undefined;
    const line = (value: string | null | undefined) => value?.replace(/\s+/g, ' ').trim() || undefined;
    return { title: line(article.title), byline: line(article.byline), siteName: line(article.siteName), html: article.content };
  } catch {
    // A page Readability cannot take (too many elements, markup that breaks it): the converter reads it.
    return undefined;
  }
}
