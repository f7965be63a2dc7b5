import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/discord/split-message.js';

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
});
