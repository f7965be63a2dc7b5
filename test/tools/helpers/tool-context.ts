/** A ToolContext for calling a tool directly, as the engine would. */
import type { ToolContext, ToolOutput } from '../../../src/agent/tool.js';

export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    fetch: globalThis.fetch,
    now: () => new Date('2025-03-04T14:05:09Z'),
    ...overrides,
  };
}

/** The text of a tool's result, whichever form it came back in. */
export function outputOf(result: string | ToolOutput): string {
  return typeof result === 'string' ? result : result.output;
}
