/**
 * HTML to readable plain text, for documents and pages (in the document reader's worker) and for the
 * short snippets of Wikipedia and web search results. A small single-pass scanner rather than a DOM:
 * every skip is one `indexOf` forward, so hostile markup (a thousand unclosed `<script` tags, 90,000
 * nested `<div>`s) costs linear time, and nothing here ever runs the page's code.
 * Character references go through `entities` (the decoder behind htmlparser2 and cheerio).
 */
import { DecodingMode, decodeHTML } from 'entities';

/** Elements whose content is never text a reader sees. */
const SKIP_CONTENT = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'nav', 'aside', 'footer', 'select', 'button']);
/** Elements that start a new line. */
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'ul', 'ol', 'table', 'tr', 'blockquote', 'pre', 'figure', 'figcaption', 'dl', 'dt', 'dd', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'br', 'li', 'address', 'details', 'summary']);

/**
 * Where a character reference can be: `&`, then what a reference may consist of, then an optional `;`.
 * In text (unlike attributes) HTML5 decodes a reference without looking past it, so decoding each
 * candidate alone gives what decoding the whole text would.
 */
const REFERENCE = /&[#a-zA-Z0-9]+;?/g;

/**
 * Decode character references as an HTML5 parser does in text: every named reference of the standard
 * (`&eacute;`, `&frac12;`, `&rarr;`), numeric ones (with the spec's replacements: `&#150;` is `–`, `&#0;`
 * is U+FFFD), and the legacy names HTML5 still accepts without a semicolon (`&amp`, `&copy`, `&eacute`).
 * Unknown names are left as written. `entities` decodes each candidate: handed a whole megabyte of bare
 * ampersands it grows its answer one character at a time, which costs more per kilobyte the larger the
 * page; candidate by candidate the cost stays linear.
 */
export function decodeEntities(text: string): string {
  return text.replace(REFERENCE, (candidate) => decodeHTML(candidate, DecodingMode.Legacy));
}

/**
 * Collapse runs of spaces within lines and runs of blank lines between them, and drop invisible format
 * characters (soft hyphens, zero-width spaces and joiners, bidi controls): a reader sees none of them,
 * and bidi overrides can make text read differently from what it says.
 */
export function tidyWhitespace(text: string): string {
  return text
    .replace(/\p{Cf}+/gu, '')
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Lower-case ASCII letters only, so every index in the copy matches the original. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** The page's title and its readable text, preferring `<main>` or `<article>` over the whole body. */
export function htmlToText(html: string): { title?: string; text: string } {
  const lower = asciiLower(html);
  const region = mainRegion(lower);
  return { title: htmlTitle(html, lower), text: tidyWhitespace(scan(html.slice(region.start, region.end), lower.slice(region.start, region.end))) };
}

/** The text of the page's `<title>`, on one line; `lower` is `html` through `asciiLower` when the caller has it. */
export function htmlTitle(html: string, lower = asciiLower(html)): string | undefined {
  const titleStart = lower.indexOf('<title');
  if (titleStart === -1) return undefined;
  const open = lower.indexOf('>', titleStart);
  const close = open === -1 ? -1 : lower.indexOf('</title', open);
  return close === -1 ? undefined : tidyWhitespace(decodeEntities(html.slice(open + 1, close)).replace(/\s+/g, ' ')) || undefined;
}

function mainRegion(lower: string): { start: number; end: number } {
  for (const tag of ['main', 'article', 'body']) {
    const start = lower.search(new RegExp(`<${tag}[\\s>]`));
    if (start === -1) continue;
    const end = lower.lastIndexOf(`</${tag}`);
    return { start, end: end > start ? end : lower.length };
  }
  return { start: 0, end: lower.length };
}

/** Markup to text. `lower` is `html` with ASCII letters lower-cased, for case-blind searching. */
function scan(html: string, lower: string): string {
  const out: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      out.push(decodeEntities(html.slice(i)));
      break;
    }
    out.push(decodeEntities(html.slice(i, lt)));
    if (lower.startsWith('<!--', lt)) {
      const end = lower.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt);
    if (gt === -1) break;
    const name = /^<\/?([a-z][a-z0-9-]*)/.exec(lower.slice(lt, Math.min(gt + 1, lt + 40)))?.[1];
    i = gt + 1;
    if (!name) continue; // <!doctype>, <?xml?>, or a stray "<" that was not a tag
    const closing = lower[lt + 1] === '/';
    if (!closing && (SKIP_CONTENT.has(name) || name === 'title' || name === 'head')) {
      if (lower[gt - 1] === '/') continue; // self-closed, e.g. <svg/>
      const end = lower.indexOf(`</${name}`, i);
      i = end === -1 ? html.length : Math.max(i, lower.indexOf('>', end) + 1 || html.length);
      continue;
    }
    if (name === 'li') {
      if (!closing) out.push('\n- ');
    }
    else if (name === 'td' || name === 'th') out.push(' ');
    else if (BLOCK.has(name)) out.push(/^h[1-6]$/.test(name) || name === 'p' ? '\n\n' : '\n');
  }
  return out.join('');
}

/** "By Jane Doe", however the page wrote its byline. */
export function bylineLine(byline: string): string {
  return /^by\b/i.test(byline) ? byline : `By ${byline}`;
}

/**
 * `text` cut to at most `max` characters, at a sentence or line end when one is reasonably close, with
 * `cut` telling whether anything was dropped.
 */
export function capText(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const head = text.slice(0, max);
  const end = Math.max(head.lastIndexOf('. '), head.lastIndexOf('.\n'), head.lastIndexOf('\n'));
  return { text: end > max * 0.6 ? head.slice(0, end + 1).trimEnd() : `${head.trimEnd()}…`, cut: true };
}
