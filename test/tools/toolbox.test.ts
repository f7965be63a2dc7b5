/**
 * The toolbox as the engine and the moderation settings see it: names, defaults, schemas, and the
 * text protocol's plain input reaching the right parameter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_NAMES, createToolbox } from '../../tools/index.js';
import { safeToolNames } from '../../src/policy/index.js';
import { outputOf, toolContext } from './helpers/tool-context.js';
import { openMemoryBackend } from '../../src/storage/memory/key-value.js';
import { createMemberMemoryStore } from '../../src/state/member-memory/index.js';

/** A knowledge base with nothing in it: enough for the toolbox to build search_knowledge. */
const knowledge = { search: async () => [], hasDocuments: async () => false };
/** A member memory store and a thread index with nothing in them: enough to build the memory tools and search_threads. */
const memory = createMemberMemoryStore({ backend: openMemoryBackend(), namespace: 't', now: () => new Date() });
const threads = { search: async () => [] };

describe('the toolbox', () => {
  const webSearch = { provider: 'searxng' as const, url: 'http://127.0.0.1:9/', dailyLimit: 0 };
  const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'threadwise-tests', knowledge, webSearch, memory, threads });
  afterAll(() => toolbox.close());

  it('lists every tool once, in the order of TOOL_NAMES', () => {
    expect(toolbox.tools.map((tool) => tool.name)).toEqual([...TOOL_NAMES]);
    expect(TOOL_NAMES).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge', 'search_threads', 'web_search', 'plot', 'remember', 'forget']);
  });

  it('leaves search_knowledge and search_threads out without their index (Redis and no KNOWLEDGE_URL), the memory tools without the store, and web_search without a provider', async () => {
    const without = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x' });
    expect(without.tools.map((tool) => tool.name)).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'plot']);
    await without.close();
  });

  it('turns the safe tools on by default (search_knowledge and search_threads read only the server\'s own documents and threads, plot draws locally, the memory tools keep a member\'s own notes) and leaves read_url and web_search off', () => {
    expect(safeToolNames(toolbox.tools)).toEqual(['calculate', 'wikipedia', 'current_time', 'search_knowledge', 'search_threads', 'plot', 'remember', 'forget']);
  });

  it('gives every tool a description, a text-protocol parameter, examples and a JSON schema', () => {
    for (const tool of toolbox.tools) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.examples?.length).toBeGreaterThanOrEqual(1);
      expect(tool.examples!.length).toBeLessThanOrEqual(3);
      const schema = z.toJSONSchema(tool.parameters, { io: 'input' }) as { properties: Record<string, unknown> };
      expect(Object.keys(schema.properties)).toContain(tool.textParameter);
      for (const example of tool.examples!) {
        expect(tool.parameters.safeParse({ [tool.textParameter!]: example }).success).toBe(true);
      }
    }
  });

  it('runs a calculation through the toolbox and stops its worker on close', async () => {
    const calculate = toolbox.tools.find((tool) => tool.name === 'calculate')!;
    expect(outputOf(await calculate.run({ expression: '(17 + 4) * 3 / 7' }, toolContext()))).toBe('9');
    const other = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x' });
    await other.tools[0]!.run({ expression: '1' }, toolContext());
    await other.close();
    await expect(other.tools[0]!.run({ expression: '1' }, toolContext())).rejects.toThrow(/shut down/);
  });
});

describe('tool names', () => {
  it('never lets one tool answer to another tool\'s name or alias', () => {
    const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x', knowledge, memory, threads, webSearch: { provider: 'searxng', url: 'http://127.0.0.1:9/', dailyLimit: 0 } });
    const names = toolbox.tools.flatMap((tool) => [tool.name, ...(tool.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    return toolbox.close();
  });
});
