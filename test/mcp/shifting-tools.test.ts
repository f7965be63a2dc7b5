/**
 * A server that changes its tools after approval, through the real MCP SDK (test/mcp/fixtures/shifty-server.mjs):
 * every change the model or the policy reads changes the fingerprint (annotations, a title that stands
 * in for a missing description, a nested schema description); text is cleaned and capped at any depth;
 * a schema past the cap and two names that collapse to one model name are refused, with the reason.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/agent/tool.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';
import { McpServers } from '../../src/mcp/index.js';
import { shiftyServer } from './helpers/servers.js';

const warnings: string[] = [];
const logger = { info: () => undefined, warn: (_f: unknown, message: string) => void warnings.push(message), debug: () => undefined };
let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

async function start(): Promise<McpServers> {
  servers = new McpServers([shiftyServer()], { logger, callTimeoutMs: 5_000, readyWaitMs: 15_000 });
  await servers.start();
  return servers;
}

function find(s: McpServers, name: string): ToolDefinition {
  const tool = s.tools().find((t) => t.name === `shifty__${name}`);
  if (!tool) throw new Error(`no shifty__${name}`);
  return tool;
}

async function shift(s: McpServers, what: string): Promise<void> {
  await find(s, 'shift').run({ what }, { signal: new AbortController().signal, fetch, now: () => new Date() });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('an MCP server that changes its tools after approval', () => {
  for (const [what, tool, check] of [
    ['annotations', 'write_file', (t: ToolDefinition) => expect(t.askByDefault).toBe(false)],
    ['title', 'lookup', (t: ToolDefinition) => expect(t.description).toContain('call shifty__write_file')],
    ['schema', 'fetch_page', (t: ToolDefinition) => expect(JSON.stringify(t.inputSchema)).toContain('query string')],
  ] as const) {
    it(`a change of its ${what} changes the fingerprint the moderator pinned`, async () => {
      const s = await start();
      const before = find(s, tool).fingerprint;
      await shift(s, what);
      await until(() => find(s, tool).fingerprint !== before, 'the new listing');
      check(find(s, tool));
      expect(find(s, tool).provenance!.listing).toBeDefined();
    });
  }

  it('a title without a description is what the model reads, and what the pin covers', async () => {
    const s = await start();
    expect(find(s, 'lookup')).toMatchObject({ description: 'Looks a word up', provenance: { listing: { title: 'Looks a word up', description: 'Looks a word up' } } });
  });

  it('cleans and caps every text of a schema: the model gets what /tools shows, without the hidden instruction', async () => {
    const s = await start();
    const wordy = find(s, 'wordy');
    const style = (wordy.inputSchema as { properties: { style: { description: string; enum: string[] } } }).properties.style;
    expect(style.description.length).toBeLessThanOrEqual(500);
    expect(style.description).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
    expect(style.enum).toEqual(['plain', 'fancy']);
    expect(JSON.parse(wordy.provenance!.listing!.schema)).toEqual(wordy.inputSchema);
  });

  it('refuses a schema past the size cap and two tools whose names collapse to one, naming both', async () => {
    const s = await start();
    const names = s.tools().map((t) => t.name);
    expect(names).not.toContain('shifty__huge');
    expect(names).not.toContain('shifty__dup_a');
    const refused = s.refused();
    expect(refused.find((r) => r.tool === 'huge')!.reason).toContain(`larger than the ${TEXT_CAPS.mcpSchema.toLocaleString('en-US')} characters the bot offers`);
    for (const tool of ['dup.a', 'dup_a']) {
      expect(refused.find((r) => r.tool === tool)!.reason).toBe('`dup.a` (server `shifty`) and `dup_a` (server `shifty`) both become `shifty__dup_a` for the model; neither is offered until one is renamed');
    }
    expect(warnings.some((w) => w.includes('`dup.a`') && w.includes('`dup_a`'))).toBe(true);
    expect(s.status()[0]!.refused.map((r) => r.tool).sort()).toEqual(['dup.a', 'dup_a', 'huge']);
  });
});
