/**
 * The toolbox as the engine and the moderation settings see it: names, defaults, schemas, and the
 * text protocol's plain input reaching the right parameter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_NAMES, createToolbox } from '../../tools/index.js';
import { safeToolNames } from '../../src/policy/index.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

describe('the toolbox', () => {
  const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'threadwise-tests' });
  afterAll(() => toolbox.close());

  it('lists every tool once, in the order of TOOL_NAMES', () => {
    expect(toolbox.tools.map((tool) => tool.name)).toEqual([...TOOL_NAMES]);
    expect(TOOL_NAMES).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url']);
  });

  it('turns the safe tools on by default and leaves read_url off', () => {
    expect(safeToolNames(toolbox.tools)).toEqual(['calculate', 'wikipedia', 'current_time']);
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
    const toolbox = createToolbox({ wikipediaApiUrl: 'http://127.0.0.1:9/w/api.php', userAgent: 'x' });
    const names = toolbox.tools.flatMap((tool) => [tool.name, ...(tool.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    return toolbox.close();
  });
});
