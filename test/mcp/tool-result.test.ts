/** Turning a `tools/call` result into what the model and people see, for the content kinds servers send. */
import { describe, expect, it } from 'vitest';
import { toToolOutput, ToolResultError } from '../../src/mcp/tool-result.js';

describe('MCP tool results', () => {
  it('structured content alone becomes JSON; web resource links become sources', () => {
    expect(toToolOutput({ structuredContent: { rows: 2 } })).toEqual({ output: '{"rows":2}' });
    const out = toToolOutput({ content: [{ type: 'resource_link', uri: 'https://example.com/a', name: 'a', title: 'Page A' }] });
    expect(out).toEqual({ output: 'Link: Page A <https://example.com/a>', sources: [{ title: 'Page A', url: 'https://example.com/a' }] });
  });

  it('embedded text resources as text, binary ones and audio named but not shown', () => {
    const out = toToolOutput({
      content: [
        { type: 'resource', resource: { uri: 'file:///notes.txt', text: 'remember the milk' } },
        { type: 'resource', resource: { uri: 'file:///x.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
      ],
    });
    expect(out.output).toBe('Resource file:///notes.txt:\nremember the milk\n[resource file:///x.bin (application/octet-stream): not shown]\n[audio (audio/wav): not shown]');
  });

  it('an isError result is thrown with its text, so the engine makes it an error observation', () => {
    expect(() => toToolOutput({ isError: true, content: [{ type: 'text', text: 'no such repo' }] })).toThrow(new ToolResultError('no such repo'));
    expect(toToolOutput({ content: [] })).toEqual({ output: '(no output)' });
  });
});
