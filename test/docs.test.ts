/**
 * Docs a newcomer can walk (issue 44): a short README, every setting of `.env.example` explained in
 * exactly one docs page (a defining line: a table's first cell, a list item's start, a heading, or
 * `` `NAME`: ``; other pages link to it) that its section of `.env.example` points to, and no relative
 * link in the README or the docs that leads nowhere. The rules are also run on planted pages, so each is
 * seen catching what it is for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './import-graph.js';
import { definedOn, linkProblems, settingProblems, settingsOf, slug, type Files } from './docs-check.js';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const settings = settingsOf(read('.env.example'));
const names = new Set(settings.map((s) => s.name));
const docsPages: Record<string, string> = Object.fromEntries(
  fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => [`docs/${f}`, read(`docs/${f}`)]),
);
const files: Files = {
  exists: (file) => fs.existsSync(path.join(ROOT, file)),
  text: (file) => (file.endsWith('.md') && fs.existsSync(path.join(ROOT, file)) ? read(file) : undefined),
};

/**
 * Pages other engineers are writing in parallel (issue 44); the README and the index already link to
 * them. Only their absence is forgiven: once a page exists, links to it and its anchors are checked.
 */
const PENDING_PAGES = new Set(['docs/testing.md', 'docs/console.md', 'docs/skills.md', 'docs/feedback-and-evaluations.md']);

describe('the README', () => {
  it('is at most 250 lines: what it is, a run in a thread, the two commands, the setup, the links', () => {
    const lines = read('README.md').trimEnd().split('\n').length;
    expect(lines, `README.md has ${lines} lines; move detail into docs/`).toBeLessThanOrEqual(250);
  });
});

describe('every setting of .env.example', () => {
  it('is read from .env.example, commented lines too (the checker itself works)', () => {
    expect(names).toContain('DISCORD_TOKEN');
    expect(names).toContain('HEALTH_PORT'); // `#HEALTH_PORT=9464`
    expect(settingsOf('# --- A ---\n# See docs/a.md\nA_B=1\n# C_D=\n# A sentence, not a setting.\n').map((s) => [s.name, s.pointers])).toEqual([
      ['A_B', ['docs/a.md']],
      ['C_D', ['docs/a.md']],
    ]);
  });

  it('has exactly one defining line across docs/*.md, in a page its section of .env.example points to', () => {
    expect(settingProblems(settings, docsPages)).toEqual([]);
  });

  it('defining lines are a first cell, a list item\'s start, a heading or `NAME`:; a mention elsewhere only refers', () => {
    const known = new Set(['A_B', 'C_D']);
    expect(definedOn('| `A_B`, `C_D` | 1 | what it does |', known)).toEqual(['A_B', 'C_D']);
    expect(definedOn('- **`A_B`** (default 1): what it does', known)).toEqual(['A_B']);
    expect(definedOn('### Where it lives (`C_D`)', known)).toEqual(['C_D']);
    expect(definedOn('`A_B`: what it does', known)).toEqual(['A_B']);
    expect(definedOn('| limit | `A_B` | 1 |', known)).toEqual([]);
    expect(definedOn('Set `A_B` to change it.', known)).toEqual([]);
    expect(definedOn('- the cap, `A_B`, holds', known)).toEqual([]);
  });

  it('a setting defined on a second page is reported with both places (a planted duplicate)', () => {
    const page = Object.keys(docsPages).find((p) => docsPages[p]!.includes('| `HISTORY_TOKEN_BUDGET`'))!;
    const other = Object.keys(docsPages).find((p) => p !== page)!;
    const planted = { ...docsPages, [other]: `${docsPages[other]}\n| \`HISTORY_TOKEN_BUDGET\` | 8000 | planted |\n` };
    const problems = settingProblems(settings, planted);
    expect(problems).toEqual([expect.stringMatching(/^HISTORY_TOKEN_BUDGET has 2 defining lines, keep one and link to it: /)]);
    expect(problems[0]).toContain(`${page}:`);
    expect(problems[0]).toContain(`${other}:`);
  });

  it('a setting whose defining line is removed is reported as explained nowhere (a planted removal)', () => {
    const [page, text] = Object.entries(docsPages).find(([, t]) => t.includes('| `WEB_SEARCH_DAILY`'))!;
    const planted = { ...docsPages, [page]: text.split('\n').filter((l) => !l.startsWith('| `WEB_SEARCH_DAILY`')).join('\n') };
    expect(settingProblems(settings, planted)).toEqual([expect.stringMatching(/^WEB_SEARCH_DAILY \(\.env\.example line \d+\) is explained in no docs page/)]);
  });

  it('a setting explained on a page its section does not point to is reported', () => {
    const moved = settingsOf('# --- A ---\n# See docs/a.md\nA_B=1\n');
    expect(settingProblems(moved, { 'docs/b.md': '| `A_B` | 1 |' })).toEqual([expect.stringContaining('A_B is explained in docs/b.md, but its section of .env.example points to docs/a.md')]);
  });
});

describe('links in the README and the docs', () => {
  const pages = { 'README.md': read('README.md'), ...docsPages };

  it('each relative link points to a file that exists, and to a heading that exists where it names one', () => {
    expect(linkProblems(pages, files, PENDING_PAGES)).toEqual([]);
  });

  it('a link to a missing file or heading is reported; a page still being written is forgiven only while absent', () => {
    const planted = {
      'docs/a.md': '# A page\n\n## Two words `here`\n\n[ok](#two-words-here) [bad](#nowhere) [gone](gone.md) [soon](soon.md) [up](../README.md#nope)\n```\n[in code](missing.md)\n```\n',
    };
    const fake: Files = { exists: (f) => ['docs/a.md', 'README.md'].includes(f), text: (f) => (f === 'README.md' ? '# threadwise\n' : planted['docs/a.md']) };
    expect(linkProblems(planted, fake, new Set(['docs/soon.md']))).toEqual([
      'docs/a.md:5 links to #nowhere, but docs/a.md has no heading with the anchor #nowhere',
      'docs/a.md:5 links to gone.md, but docs/gone.md does not exist',
      'docs/a.md:5 links to ../README.md#nope, but README.md has no heading with the anchor #nope',
    ]);
    expect(slug('Where the index lives (`KNOWLEDGE_URL`)')).toBe('where-the-index-lives-knowledge_url');
  });
});
