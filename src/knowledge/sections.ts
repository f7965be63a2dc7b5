/**
 * A document's text as sections: the heading path above each run of blocks (paragraphs, lists, code
 * fences). Markdown headings are ATX (`## x`) or setext (a line underlined with `===` or `---`);
 * nothing inside a code fence is a heading. Plain text has one section with no headings. HTML, once
 * converted, marks its headings with HEADING_MARK so that `# comment` lines of its code samples are
 * not mistaken for headings.
 */

/** Put before an HTML heading's text (followed by its level digit) by the HTML loader. */
export const HEADING_MARK = '\uE000';

export interface Section {
  /** Headings above the blocks, outermost first. */
  headings: string[];
  /** Paragraphs, lists and code fences, in order. */
  blocks: string[];
}

export type SectionSyntax = 'markdown' | 'text' | 'marked';

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-{2,})[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MARKED = new RegExp(`^${HEADING_MARK}([1-6])(.*)$`);

/** `text` as sections, with the first level-1 heading (or failing that the first heading) as a title. */
export function splitSections(text: string, syntax: SectionSyntax): { sections: Section[]; title?: string } {
  const sections: Section[] = [];
  let h1: string | undefined;
  let anyHeading: string | undefined;
  const stack: string[] = [];
  let current: Section = { headings: [], blocks: [] };
  let paragraph: string[] = [];
  let fence: string | undefined;

  const endParagraph = () => {
    const block = paragraph.join('\n').trim();
    if (block) current.blocks.push(block);
    paragraph = [];
  };
  const startSection = (level: number, title: string) => {
    endParagraph();
    if (current.blocks.length) sections.push(current);
    stack.length = Math.min(stack.length, level - 1);
    while (stack.length < level - 1) stack.push('');
    const plain = plainHeading(title);
    stack.push(plain);
    if (level === 1 && h1 === undefined && plain) h1 = plain;
    if (anyHeading === undefined && plain) anyHeading = plain;
    current = { headings: stack.filter(Boolean), blocks: [] };
  };

  for (const line of text.split('\n')) {
    if (syntax === 'markdown') {
      const fenceMatch = FENCE.exec(line);
      if (fence) {
        paragraph.push(line);
        if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) {
          fence = undefined;
          endParagraph();
        }
        continue;
      }
      if (fenceMatch) {
        endParagraph();
        fence = fenceMatch[1]!;
        paragraph.push(line);
        continue;
      }
      const atx = ATX.exec(line);
      if (atx) {
        startSection(atx[1]!.length, atx[2] ?? '');
        continue;
      }
      const setext = SETEXT.exec(line);
      if (setext && paragraph.length === 1 && paragraph[0]!.trim()) {
        const title = paragraph[0]!;
        paragraph = [];
        startSection(setext[1]![0] === '=' ? 1 : 2, title);
        continue;
      }
    } else if (syntax === 'marked') {
      const marked = MARKED.exec(line);
      if (marked) {
        startSection(Number(marked[1]), marked[2] ?? '');
        continue;
      }
    }
    if (line.trim() === '') endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  if (current.blocks.length) sections.push(current);
  return { sections, title: h1 ?? anyHeading };
}

/** A heading's text without Markdown decoration: links keep their text, emphasis and code marks go. */
export function plainHeading(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}
