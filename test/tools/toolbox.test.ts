/**
 * The toolbox as the engine and the moderation settings see it: names, defaults, schemas, and the
 * text protocol's plain input reaching the right parameter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_NAMES, createToolbox } from '../../tools/index.js';
import { safeToolNames } from '../../src/policy/index.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

/** A knowledge base with nothing in it: enough for the toolbox to build search_knowledge. */
const knowledge = { search: async () => [], hasDocuments: async () => false };

describe('the toolbox', () => {
  const webSearch = { provider: 'searxng' as const, url: 'http://127.0.0.1:9/', dailyLimit: 0 };
  const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'threadwise-tests', knowledge, webSearch });
  afterAll(() => toolbox.close());

  it('lists every tool once, in the order of TOOL_NAMES', () => {
    expect(toolbox.tools.map((tool) => tool.name)).toEqual([...TOOL_NAMES]);
    expect(TOOL_NAMES).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge', 'web_search', 'plot']);
  });

  it('leaves search_knowledge out without a knowledge base (Redis and no KNOWLEDGE_URL), and web_search without a provider', async () => {
    const without = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x' });
    expect(without.tools.map((tool) => tool.name)).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'plot']);
    await without.close();
  });

  it('turns the safe tools on by default (search_knowledge reads only the server\'s own documents, plot draws locally) and leaves read_url and web_search off', () => {
    expect(safeToolNames(toolbox.tools)).toEqual(['calculate', 'wikipedia', 'current_time', 'search_knowledge', 'plot']);
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
    const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x', knowledge, webSearch: { provider: 'searxng', url: 'http://127.0.0.1:9/', dailyLimit: 0 } });
    const names = toolbox.tools.flatMap((tool) => [tool.name, ...(tool.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    return toolbox.close();
  });
});
