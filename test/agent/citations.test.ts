/**
 * Citation numbers run on across a run: a tool that numbers its results asks the run for the numbers,
 * so a second search never shows a second `[1]`, a source seen again keeps its number, and the answer's
 * sources are listed in that order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Citations, ownNumbers } from '../../src/agent/citations.js';
import { defineTool } from '../../src/agent/tool.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { collect, modelFor, ofType } from './helpers.js';

describe('Citations', () => {
  it('numbers sources in the order first seen, by address (or title without one), and lists them so', () => {
    const citations = new Citations();
    expect(citations.cite({ title: 'A', url: 'https://a.example/' })).toBe(1);
    expect(citations.cite({ title: 'B', url: 'https://b.example/' })).toBe(2);
    expect(citations.cite({ title: 'A again', url: 'https://a.example/' })).toBe(1);
    expect(citations.cite({ title: 'Handbook.pdf' })).toBe(3);
    expect(citations.cite({ title: 'Handbook.pdf' })).toBe(3);
    expect(citations.list()).toEqual([{ title: 'A', url: 'https://a.example/' }, { title: 'B', url: 'https://b.example/' }, { title: 'Handbook.pdf' }]);
    // Outside a run a tool numbers its own results from 1.
    const own = ownNumbers();
    expect([own({ title: 'X', url: 'https://x.example/' }), own({ title: 'Y', url: 'https://y.example/' })]).toEqual([1, 2]);
  });
});

describe('citation numbers in a run', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(() => server.close());

  /** A search tool over fixed pages, numbering its results as the run says (as web_search does). */
  const pages: Record<string, string[]> = { first: ['https://a.example/', 'https://b.example/'], second: ['https://c.example/', 'https://a.example/'] };
  const search = defineTool({
    name: 'search',
    description: 'Search.',
    parameters: z.object({ q: z.string() }),
    async run({ q }, ctx) {
      const sources = (pages[q] ?? []).map((url) => ({ title: `Page ${url.slice(8, 9).toUpperCase()}`, url }));
      const numbers = sources.map((s) => ctx.cite!(s));
      return { output: sources.map((s, i) => `[${numbers[i]}] ${s.title}`).join('\n'), sources };
    },
  });

  it('a second search goes on where the first ended, a page seen again keeps its number, and the answer lists them in that order', async () => {
    server.script(
      { toolCalls: [{ name: 'search', arguments: { q: 'first' } }] },
      { toolCalls: [{ name: 'search', arguments: { q: 'second' } }] },
      { content: 'C is newer [3], A is older [1].' },
    );
    const { events, result } = await collect({ model: modelFor(server), tools: [search], messages: [{ role: 'user', content: 'Compare.' }], protocol: 'native' });
    const outputs = ofType(events, 'observation').map((o) => o.output);
    expect(outputs).toEqual(['[1] Page A\n[2] Page B', '[3] Page C\n[1] Page A']);
    expect(result.sources.map((s) => s.url)).toEqual(['https://a.example/', 'https://b.example/', 'https://c.example/']);
  });

  it('each run numbers from 1', async () => {
    server.script({ toolCalls: [{ name: 'search', arguments: { q: 'second' } }] }, { content: 'Done.' });
    const { events } = await collect({ model: modelFor(server), tools: [search], messages: [{ role: 'user', content: 'Again.' }], protocol: 'native' });
    expect(ofType(events, 'observation')[0]!.output).toBe('[1] Page C\n[2] Page A');
  });
});
