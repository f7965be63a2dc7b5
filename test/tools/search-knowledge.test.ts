/** The `search_knowledge` tool over a real (in-memory SQLite) knowledge base, and through the engine. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext, ToolOutput } from '../../src/agent/tool.js';
import { createEngine } from '../../src/agent/engine.js';
import { documentFromDiscordMessage, openKnowledgeBase, type KnowledgeBase } from '../../src/knowledge/index.js';
import { createSearchKnowledgeTool } from '../../tools/search-knowledge.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

const GUILD = '123456789012345678';

describe('search_knowledge', () => {
  let kb: KnowledgeBase;
  beforeAll(async () => {
    kb = await openKnowledgeBase('memory:', { baseDir: process.cwd() });
    await kb.add(GUILD, {
      source: 'https://wiki.example.com/events', link: 'https://wiki.example.com/events', format: 'markdown',
      content: '# Events\n\n## Build contest\n\nEvery Friday at 18:00 UTC a theme is announced; sign up with /signup in #events.\n\n## Speedrun\n\nFirst Saturday of the month.',
    });
    await kb.add(GUILD, { source: '/srv/rules.md', format: 'markdown', content: '# Rules\n\nNo spoilers in #general; the build contest theme is not a spoiler.' });
    for (let i = 0; i < 12; i++) await kb.add('busy', { source: `n${i}.md`, format: 'markdown', content: `# Note ${i}\n\n${'contest '.repeat(200)}` });
  });
  afterAll(() => kb.close());

  const tool = () => createSearchKnowledgeTool(kb);
  const run = async (args: { query: string; limit?: number }, collection?: string) =>
    tool().run(tool().parameters.parse(args), toolContext({ collection }));

  it('returns numbered passages with title, heading path and link, and their documents as sources (one added from a file by its title)', async () => {
    const result = (await run({ query: 'when is the build contest?' }, GUILD)) as ToolOutput;
    expect(result.output).toMatch(/^2 passages from this server's documents, best first:/);
    expect(result.output).toContain('[1] Events › Build contest\nLink: https://wiki.example.com/events\nEvery Friday at 18:00 UTC');
    expect(result.output).toContain('[2] Rules\nNo link (a document added from a file).');
    expect(result.sources).toEqual([{ title: 'Events › Build contest', url: 'https://wiki.example.com/events' }, { title: 'Rules' }]);
  });

  it('defaults to 5 passages, takes up to 10, and keeps the output within the tool output cap', async () => {
    const count = (r: string | ToolOutput) => outputOf(r).match(/^\[\d+\]/gm)?.length;
    expect(count(await run({ query: 'contest' }, 'busy'))).toBe(5);
    expect(count(await run({ query: 'contest', limit: 10 }, 'busy'))).toBe(10);
    expect(outputOf(await run({ query: 'contest', limit: 10 }, 'busy')).length).toBeLessThan(4_000);
    expect(outputOf(await run({ query: 'contest', limit: 1 }, 'busy')).length).toBeLessThan(4_000);
    expect(() => tool().parameters.parse({ query: 'x', limit: 11 })).toThrow();
    expect(() => tool().parameters.parse({ query: '' })).toThrow();
  });

  it('says clearly when there is no collection, no document, or no match', async () => {
    expect(await run({ query: 'contest' })).toMatch(/no knowledge base here.*not in one/);
    expect(await run({ query: 'contest' }, '999999999999999999')).toMatch(/has no documents yet.*\/kb add/);
    expect(await run({ query: 'submarine' }, GUILD)).toMatch(/No passage of this server's documents matches "submarine"/);
  });

  it('is searched by a model in a run, whose answer carries the source link', async () => {
    const server = await FakeOpenAIServer.start();
    try {
      server.script(
        { toolCalls: [{ name: 'search_knowledge', arguments: { query: 'build contest' } }] },
        { content: 'Fridays at 18:00 UTC (see the events page).' },
      );
      const engine = createEngine({
        model: new OpenAIChatModel({ apiKey: 'k', baseURL: server.baseURL, model: 'fake', timeoutMs: 5_000, maxRetries: 0, maxRetryWaitMs: 0 }),
        tools: [tool()],
        defaults: { protocol: 'native', maxSteps: 3, toolTimeoutMs: 5_000, runTimeoutMs: 10_000 },
      });
      // The run's collection (a server's id) reaches the tool through the engine.
      const result = await engine.run({ messages: [{ role: 'user', content: 'When is the build contest?' }], collection: GUILD }).result;
      expect(result.answer).toContain('Fridays');
      expect(result.sources[0]).toEqual({ title: 'Events › Build contest', url: 'https://wiki.example.com/events' });
      expect(server.requests[1]!.body.messages.at(-1)!.content).toContain('Every Friday at 18:00 UTC');
    } finally {
      await server.close();
    }
  });

  it("returns a channel's passages only when the run's asker can view that channel", async () => {
    const MODS = '223456789012345679';
    await kb.add(GUILD, documentFromDiscordMessage({ guildId: GUILD, channelId: MODS, messageId: '323456789012345679', content: 'The build contest judges meet in the back office.', authorName: 'Mod' }));
    const search = (canViewChannel?: (id: string) => boolean) =>
      tool().run(tool().parameters.parse({ query: 'build contest judges', limit: 10 }), toolContext({ collection: GUILD, canViewChannel }));
    expect(outputOf(await search((id) => id !== MODS))).not.toContain('back office');
    expect(outputOf(await search((id) => id === MODS))).toContain('back office');
    expect(outputOf(await search())).toContain('back office'); // the terminal sees everything

    // Through the engine: the predicate is the run's, as the Discord layer passes it.
    const server = await FakeOpenAIServer.start();
    try {
      server.script({ toolCalls: [{ name: 'search_knowledge', arguments: { query: 'contest judges' } }] }, { content: 'Done.' });
      const engine = createEngine({
        model: new OpenAIChatModel({ apiKey: 'k', baseURL: server.baseURL, model: 'fake', timeoutMs: 5_000, maxRetries: 0, maxRetryWaitMs: 0 }),
        tools: [tool()],
        defaults: { protocol: 'native', maxSteps: 3, toolTimeoutMs: 5_000, runTimeoutMs: 10_000 },
      });
      const asked: string[] = [];
      await engine.run({ messages: [{ role: 'user', content: 'Who judges?' }], collection: GUILD, canViewChannel: (id) => (asked.push(id), false) }).result;
      expect(asked).toEqual([MODS]);
      expect(server.requests[1]!.body.messages.at(-1)!.content).not.toContain('back office');
    } finally {
      await server.close();
    }
  });
});
