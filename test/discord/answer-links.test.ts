/**
 * The model's answer can carry a masked link a web page asked for, its label lying about where it goes:
 * the answer shows each link's real host (a link the bot makes from the parsed URL), and anything that is
 * not an http(s) link cannot become one. Code is left alone.
 */
import { describe, expect, it } from 'vitest';
import { answerLinks, formatAnswer } from '../../src/discord/posting/format-steps.js';

const result = { steps: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, durationMs: 5, reason: 'answer' as const };

describe('links in the answer', () => {
  it('a masked link reads as its label and its real host; the label can no longer be the link', () => {
    const shown = answerLinks('Log in at [Official Discord login](https://phish.example/login) now.');
    expect(shown).toBe('Log in at Official Discord login ([phish.example](<https://phish.example/login>)) now.');
    expect(shown).not.toMatch(/\[Official Discord login\]\(/);
  });

  it('a link to anything but http(s), or one whose URL does not parse, keeps its words and cannot form', () => {
    for (const text of ['[click](javascript:alert(1))', '[x](https://user:pw@evil.example/)', '[mail](mailto:a@b.c)']) {
      const shown = answerLinks(text);
      expect(shown).not.toMatch(/\]\(/);
      expect(shown.replace(/\u200b/g, '')).toBe(text);
    }
  });

  it('code blocks are left as written, and the final answer message carries the same', () => {
    const code = '```js\nconst f = table[0](x);\n```';
    expect(answerLinks(code)).toBe(code);
    const message = formatAnswer('See [docs](https://nodejs.org/api/fs.html).', result, []);
    expect(message).toContain('See docs ([nodejs.org](<https://nodejs.org/api/fs.html>)).');
  });
});
