import { afterAll, describe, expect, it } from 'vitest';
import { chunkText, CHUNK_SIZES } from '../../src/knowledge/chunk.js';
import { prepareDocument } from '../../src/knowledge/documents.js';
import { createDocumentParser } from '../../src/knowledge/parse/document-parser.js';
import { prepareParsed } from '../../src/knowledge/prepare-parsed.js';

const sentence = (n: number) => `Sentence number ${n} talks about the harbour and its boats. `;
const paragraph = (from: number, count: number) => Array.from({ length: count }, (_, i) => sentence(from + i)).join('').trim();

describe('chunking', () => {
  it('keeps the heading path of every passage, ATX and setext alike, and ignores headings in code fences', () => {
    const text = [
      'Guide', '=====', '', 'Intro text.', '',
      '## Install', '', 'Install text.', '',
      '```sh', '# not a heading', 'make install', '```', '',
      '### On Linux ###', '', 'Linux text.', '',
      'Usage', '-----', '', 'Usage text.', '',
      '#### Deep', '', 'Deep text.',
    ].join('\n');
    const { passages, title } = chunkText(text, 'markdown');
    expect(title).toBe('Guide');
    expect(passages.map((p) => [p.headings.join(' > '), p.text])).toEqual([
      ['Guide', 'Intro text.'],
      ['Guide > Install', 'Install text.\n\n```sh\n# not a heading\nmake install\n```'],
      ['Guide > Install > On Linux', 'Linux text.'],
      ['Guide > Usage', 'Usage text.'],
      ['Guide > Usage > Deep', 'Deep text.'],
    ]);
  });

  it('cleans heading decoration and keeps link text', () => {
    const { passages } = chunkText('## **Bold** `code` [link text](https://x.example)\n\nBody.', 'markdown');
    expect(passages[0]!.headings).toEqual(['Bold code link text']);
  });

  it('packs paragraphs into passages of a few hundred tokens, with a little overlap, never across a heading', () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => paragraph(i * 4, 4));
    const text = `# Long\n\n${paragraphs.join('\n\n')}\n\n## Next\n\nShort next section.`;
    const { passages } = chunkText(text, 'markdown');
    const long = passages.filter((p) => p.headings.length === 1);
    expect(long.length).toBeGreaterThan(5);
    for (const p of long) expect(p.text.length).toBeLessThanOrEqual(CHUNK_SIZES.maxChars);
    for (const p of long.slice(0, -1)) expect(p.text.length).toBeGreaterThanOrEqual(CHUNK_SIZES.targetChars * 0.7);
    // Each passage after the first starts with the end of the one before it.
    for (let i = 1; i < long.length; i++) {
      const head = long[i]!.text.split('\n\n')[0]!;
      expect(long[i - 1]!.text.endsWith(head)).toBe(true);
      expect(head.length).toBeLessThanOrEqual(CHUNK_SIZES.overlapChars + 5);
    }
    // Every sentence is in some passage.
    for (let n = 0; n < 120; n++) expect(long.some((p) => p.text.includes(`number ${n} `))).toBe(true);
    expect(passages.at(-1)).toEqual({ headings: ['Long', 'Next'], text: 'Short next section.' });
  });

  it('cuts an oversized paragraph at sentence ends, and never inside a surrogate pair', () => {
    const { passages } = chunkText(paragraph(0, 100), 'text');
    expect(passages.length).toBeGreaterThan(3);
    for (const p of passages) {
      expect(p.text.length).toBeLessThanOrEqual(CHUNK_SIZES.maxChars);
      expect(p.text.endsWith('.')).toBe(true);
    }
    const emoji = chunkText('🐉'.repeat(3_000), 'text').passages;
    expect(emoji.length).toBeGreaterThan(2);
    for (const p of emoji) expect(p.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('treats plain text as paragraphs without headings', () => {
    const { passages, title } = chunkText('# not a heading in a .txt\n\nSecond paragraph.', 'text');
    expect(title).toBeUndefined();
    expect(passages).toEqual([{ headings: [], text: '# not a heading in a .txt\n\nSecond paragraph.' }]);
  });
});

describe('preparing documents', () => {
  // HTML is read in the document reader's worker, as the bot reads it.
  const reader = createDocumentParser();
  afterAll(() => reader.close());

  it('converts HTML with read_url\'s converter and keeps its headings as the path (not # lines of code samples)', async () => {
    const html = `<html><head><title>Ban appeals</title><script>evil()</script></head><body><nav>Home</nav><main>
      <h1>Appeals</h1><p>Intro &amp; more.</p><h2 class="x">When</h2><p>After 30 days.</p>
      <pre># shell comment\nrun-it</pre></main></body></html>`;
    const prepared = await prepareParsed({ source: 'https://example.com/appeals', format: 'html', content: html }, reader, { maxTextBytes: 1_000_000 });
    expect(prepared.title).toBe('Ban appeals');
    expect(prepared.passages.map((p) => [p.headings, p.text])).toEqual([
      [['Appeals'], 'Intro & more.'],
      [['Appeals', 'When'], 'After 30 days.\n\n# shell comment\nrun-it'],
    ]);
  });

  it('takes the title from front matter, then the first level-1 heading, then the file name', () => {
    expect(prepareDocument({ source: '/d/a.md', format: 'markdown', content: '---\ntitle: "From front matter"\n---\n# Heading\n\nx' }).title).toBe('From front matter');
    const fromHeading = prepareDocument({ source: '/d/a.md', format: 'markdown', content: '## Sub first\n\nx\n\n# Main\n\ny' });
    expect(fromHeading.title).toBe('Main');
    // A path that only repeats the title is dropped from the passages.
    expect(fromHeading.passages.map((p) => p.headings)).toEqual([['Sub first'], []]);
    expect(prepareDocument({ source: '/docs/notes.txt', format: 'text', content: 'x' }).title).toBe('notes.txt');
  });

  it('hashes content, format, title and link, so any of them changing re-indexes', () => {
    const base = { source: 'a.md', format: 'markdown' as const, content: 'x' };
    const hashes = new Set([
      prepareDocument(base).hash,
      prepareDocument({ ...base, content: 'y' }).hash,
      prepareDocument({ ...base, format: 'text' }).hash,
      prepareDocument({ ...base, title: 'T' }).hash,
      prepareDocument({ ...base, link: 'https://x.example' }).hash,
      prepareDocument({ ...base, channelId: '223456789012345678' }).hash,
    ]);
    expect(hashes.size).toBe(6);
    expect(prepareDocument(base).hash).toBe(prepareDocument({ ...base }).hash);
  });
});
