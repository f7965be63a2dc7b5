/** Small tools for engine tests: predictable, observable, and able to misbehave on purpose. */
import { z } from 'zod';
import { defineTool } from '../../src/agent/tool.js';

export function makeTestTools() {
  const calls: Array<{ tool: string; args: unknown }> = [];
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    examples: ['{"a": 1, "b": 2}'],
    async run(args) {
      calls.push({ tool: 'add', args });
      return String(args.a + args.b);
    },
  });
  const echo = defineTool({
    name: 'echo',
    description: 'Repeat the text back.',
    parameters: z.object({ text: z.string() }),
    textParameter: 'text',
    aliases: ['search'],
    async run(args) {
      calls.push({ tool: 'echo', args });
      return { output: `echo: ${args.text}`, sources: [{ title: 'Echo page', url: 'https://example.org/echo' }] };
    },
  });
  const fail = defineTool({
    name: 'fail',
    description: 'Always fails.',
    parameters: z.object({}),
    async run() {
      calls.push({ tool: 'fail', args: {} });
      throw new Error('the fail tool broke on purpose');
    },
  });
  /** Never finishes and ignores its signal: the engine must not wait for it. */
  const hang = defineTool({
    name: 'hang',
    description: 'Never returns.',
    parameters: z.object({}),
    async run() {
      calls.push({ tool: 'hang', args: {} });
      return new Promise<string>(() => undefined);
    },
  });
  const big = defineTool({
    name: 'big',
    description: 'Returns a lot of text.',
    parameters: z.object({ size: z.number().int() }),
    async run(args) {
      return 'x'.repeat(args.size);
    },
  });
  return { calls, tools: [add, echo, fail, hang, big] };
}
