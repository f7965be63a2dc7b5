/**
 * HTML headings through the converter: before converting, each `<h1>`-`<h6>` gets HEADING_MARK and its
 * level put before its text, so the converted text still says where the headings were (and a `# ` line
 * of a code sample is not taken for one). The knowledge base splits the marked text into sections;
 * `read_url` shows the marks as Markdown headings, or drops them.
 */
import { HEADING_MARK } from '../sections.js';

const MARKS = new RegExp(`${HEADING_MARK}([1-6])`, 'g');

/** Mark every heading of `html`; a HEADING_MARK the page wrote itself is dropped first, so only ours remain. */
export function markHtmlHeadings(html: string): string {
  return html.replaceAll(HEADING_MARK, '').replace(/<h([1-6])(\s[^>]*)?>/gi, (tag, level: string) => `${tag}${HEADING_MARK}${level}`);
}

/** Marked text with its headings as Markdown (`## `, never a single `#`: the page's title is shown above it). */
export function markdownHeadings(text: string): string {
  return text.replace(MARKS, (_mark, level: string) => `${'#'.repeat(Math.max(2, Number(level)))} `);
}

/** Marked text with the marks dropped. */
export function withoutHeadingMarks(text: string): string {
  return text.replace(MARKS, '');
}
