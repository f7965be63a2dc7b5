/**
 * The shape of a page's markup, measured in one linear pass before any DOM is built: how many elements
 * it opens and how deep they nest. Readability over linkedom costs far more than linear in the depth
 * (90,000 nested `<div>`s, about 1 MB, took it 8 s; 5,000 with paragraphs inside, 5 s; 512, half a
 * second), so a page past these caps is not searched for its article: it is read by the single-pass
 * converter instead, which is linear whatever the nesting, and the reader is told why.
 */
import { asciiLower } from './html-text.js';

/** Deepest nesting in which an article is looked for: Chrome's HTML parser stops nesting at 512 too. */
export const MAX_ARTICLE_DEPTH = 512;
/** Most elements an article is looked for among (Readability's own `maxElemsToParse`, counted before parsing). */
export const MAX_ARTICLE_ELEMENTS = 30_000;
/** Most characters of markup an article is looked for in. */
export const MAX_ARTICLE_CHARS = 2_000_000;

/** Elements that never have content, so never nest. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);
/**
 * Elements a page may leave unclosed (the next one closes them): counting them would make a page of
 * honest unclosed paragraphs or list items look deep, so they are counted as elements but not as depth.
 */
const OPTIONAL_END = new Set(['p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'colgroup', 'rt', 'rp']);
/** Elements whose content is text, not markup: skipped to their end tag. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'iframe', 'noembed', 'noframes', 'plaintext']);

/** What the markup holds: its elements and its deepest nesting (an estimate: stray end tags are not matched). */
export interface HtmlShape {
  elements: number;
  depth: number;
}

/**
 * Count elements and nesting in one forward pass. Every step moves past what it looked at (a tag to its
 * `>`, a comment or a script to its end), so the cost stays linear however the markup is built.
 */
export function htmlShape(html: string): HtmlShape {
  const lower = asciiLower(html);
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  let at = lower.indexOf('<');
  while (at !== -1) {
    if (lower.startsWith('<!--', at)) {
      const end = lower.indexOf('-->', at + 4);
      at = end === -1 ? -1 : lower.indexOf('<', end + 3);
      continue;
    }
    const closing = lower[at + 1] === '/';
    const name = /^[a-z][a-z0-9-]*/.exec(lower.slice(at + (closing ? 2 : 1), at + 40))?.[0];
    // Not a tag ("a < b", "<3"): text. Looked at before searching for a `>`, so text never costs a search.
    const gt = name ? lower.indexOf('>', at) : at;
    if (gt === -1) break; // an unfinished tag: nothing after it is markup
    let next = gt + 1;
    if (!name) {
      at = lower.indexOf('<', next);
      continue;
    }
    const nests = !VOID.has(name) && !OPTIONAL_END.has(name);
    if (closing) {
      if (nests && depth > 0) depth -= 1;
    } else {
      elements += 1;
      const selfClosed = lower[gt - 1] === '/';
      if (RAW_TEXT.has(name) && !selfClosed) {
        // Past its end tag too: the element was never counted as depth, so its end must not be either.
        const end = lower.indexOf(`</${name}`, next);
        const close = end === -1 ? -1 : lower.indexOf('>', end);
        next = close === -1 ? lower.length : close + 1;
      } else if (nests && !selfClosed) {
        depth += 1;
        if (depth > deepest) deepest = depth;
      }
    }
    at = lower.indexOf('<', next);
  }
  return { elements, depth: deepest };
}

/** Why the page is read as plain text rather than searched for its article, or undefined when it may be. */
export function articleRefusal(html: string): string | undefined {
  if (html.length > MAX_ARTICLE_CHARS) {
    return `its markup is ${Math.round(html.length / 1_000).toLocaleString('en-US')} KB (an article is looked for in up to ${MAX_ARTICLE_CHARS / 1_000_000} MB)`;
  }
  const shape = htmlShape(html);
  if (shape.depth > MAX_ARTICLE_DEPTH) {
    return `its markup nests ${shape.depth.toLocaleString('en-US')} levels deep (an article is looked for up to ${MAX_ARTICLE_DEPTH})`;
  }
  if (shape.elements > MAX_ARTICLE_ELEMENTS) {
    return `it has ${shape.elements.toLocaleString('en-US')} elements (an article is looked for among up to ${MAX_ARTICLE_ELEMENTS.toLocaleString('en-US')})`;
  }
  return undefined;
}
