import { describe, expect, it } from 'vitest';
import { fitMessage, quotePreview, splitMessage } from '../../src/discord/posting/split-message.js';
import { formatAnswer, formatStep } from '../../src/discord/posting/format-steps.js';

function fencesBalanced(chunk: string): boolean {
  return (chunk.match(/^\s*```/gm) ?? []).length % 2 === 0;
}

describe('splitting messages for Discord', () => {
  it('leaves a short message whole', () => {
    expect(splitMessage('hello')).toEqual(['hello']);
  });

  it('sends exactly 2,000 characters as one message and 2,001 as two', () => {
    const limit = 'a'.repeat(1995) + ' bcde';
    expect(limit).toHaveLength(2000);
    expect(splitMessage(limit)).toEqual([limit]);
    const over = `${limit}f`;
    const chunks = splitMessage(over);
    expect(chunks).toHaveLength(2);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(2000);
    expect(chunks.join(' ')).toBe(over);
  });

  it('keeps every chunk within 2,000 characters and loses no words', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const chunks = splitMessage(words.join(' '));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(2000);
    expect(chunks.join(' ').split(/\s+/)).toEqual(words);
  });

  it('prefers paragraph breaks', () => {
    const para = 'a'.repeat(1500);
    const chunks = splitMessage(`${para}\n\n${para}`);
    expect(chunks).toEqual([para, para]);
  });

  it('closes and reopens a code fence that spans a split, keeping its language', () => {
    const code = Array.from({ length: 200 }, (_, i) => `const line${i} = ${i};`).join('\n');
    const chunks = splitMessage(`Here is code:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(c)).toBe(true);
    }
    expect(chunks[1]!.startsWith('```ts\n')).toBe(true);
    const lines = chunks.join('\n').split('\n').filter((l) => l.startsWith('const'));
    expect(lines).toHaveLength(200);
  });

  it('cuts a single unbroken run of characters hard', () => {
    const chunks = splitMessage('x'.repeat(4500));
    expect(chunks.map((c) => c.length)).toEqual([1996, 1996, 508]);
  });

  it('never cuts a surrogate pair or a grapheme cluster, even in text without spaces', () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const emoji = '😀'.repeat(1500);
    const chunks = splitMessage(emoji);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(lone.test(c)).toBe(false);
    expect(chunks.join('')).toBe(emoji);

    const family = '👨‍👩‍👧';
    const families = family.repeat(400);
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const parts = splitMessage(families);
    for (const c of parts) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect([...segmenter.segment(c)].every((g) => g.segment === family)).toBe(true);
    }
    expect(parts.join('')).toBe(families);
  });
});

describe('fences and cuts in what the bot posts', () => {
  it('closes a code fence left open at the end of an answer before the footer', () => {
    const text = formatAnswer('Here:\n```js\nconst a = 1;', { steps: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, durationMs: 10, reason: 'answer' }, []);
    expect(text).toMatch(/const a = 1;\n```\n\n-# 1 step/);
    expect((text.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it('a lone fence in a thought cannot open a code block over the rest of the log', () => {
    const shown = formatStep({ type: 'thought', step: 1, text: 'I will print it like ```python' }, 'full')!;
    expect((shown.match(/```/g) ?? []).length % 2).toBe(0);
    const cut = formatStep({ type: 'thought', step: 1, text: `Code:\n\`\`\`\n${'x = 1\n'.repeat(200)}\`\`\`` }, 'full')!;
    expect((cut.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it('fits an over-long reply into one message without cutting an emoji', () => {
    const fitted = fitMessage(`${'a'.repeat(1998)}😀😀`);
    expect(fitted.length).toBeLessThanOrEqual(2000);
    expect(fitted.endsWith('a…')).toBe(true);
  });
});

describe('quotePreview', () => {
  const fences = (text: string) => (text.match(/```/g) ?? []).length;

  it('closes a code block the cut falls inside, within the quote and within the room', () => {
    const answer = `Here is the script:\n\`\`\`python\n${Array.from({ length: 200 }, (_, i) => `print(${i})`).join('\n')}\n\`\`\`\nThat prints the numbers.`;
    const preview = quotePreview(answer, 500);
    expect(preview.length).toBeLessThanOrEqual(500);
    expect(fences(preview) % 2).toBe(0);
    expect(preview.split('\n').every((line) => line.startsWith('> '))).toBe(true);
    expect(preview).toContain('…');
    // What the reply adds after the quote (the link) is outside any code block.
    expect(fences(`${preview}\n-# Full answer: https://discord.com/x`) % 2).toBe(0);
  });

  it('quotes a short answer whole, untouched', () => {
    expect(quotePreview('Paris.\nSecond line.', 500)).toBe('> Paris.\n> Second line.');
  });
});
