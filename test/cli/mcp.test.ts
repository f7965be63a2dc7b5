/**
 * The terminal and MCP servers: `npm run mcp -- list` shows each server, its state and its tools, and
 * `npm run ask` offers and calls MCP tools unless `--no-mcp`. Run as a user would (node + tsx).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { runScript } from '../fakes/run-script.js';
import { sandboxSettingFor } from '../mcp/helpers/host-sandbox.js';
import { EVERYTHING, SHIFTY } from '../mcp/helpers/servers.js';

let dir: string;
let good: string;
let broken: string;
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
// The default sandbox where it reaches this checkout's servers; MCP_SANDBOX=off where it cannot (a checkout
// in a private folder), said in a printed line: test/mcp/helpers/host-sandbox.ts.
const sandbox = sandboxSettingFor('cli/mcp', { everything });
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-mcp-cli-'));
  good = path.join(dir, 'mcp.json');
  broken = path.join(dir, 'broken.json');
  await writeFile(good, JSON.stringify({ mcpServers: { everything } }));
  await writeFile(broken, JSON.stringify({ mcpServers: { everything, gone: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run mcp -- list', () => {
  it('shows each server, its state and its tools with the descriptions the model sees', async () => {
    const { code, stdout } = await runScript('src/cli/mcp.ts', ['list'], { MCP_SERVERS_FILE: good, KEYV_URL: 'memory:', ...sandbox });
    expect(stdout).toMatch(/^everything: ready over stdio, \d+ tools$/m);
    expect(stdout).toContain('  everything__get-sum [read-only]\n    Returns the sum of two numbers');
    expect(stdout).toContain('  everything__toggle-simulated-logging [may change things (not marked read-only)]');
    expect(stdout).toContain('off in Discord until a moderator enables it');
    expect(code).toBe(0);
  });

  it('names the tools it does not offer and why, and the protection the servers run under', async () => {
    const file = path.join(dir, 'shifty.json');
    await writeFile(file, JSON.stringify({ mcpServers: { shifty: { command: process.execPath, args: [SHIFTY] } } }));
    const { code, stdout } = await runScript('src/cli/mcp.ts', ['list'], { MCP_SERVERS_FILE: file, KEYV_URL: 'memory:', MCP_SANDBOX: 'off' });
    expect(stdout).toContain('Protection: MCP servers are not sandboxed (MCP_SANDBOX is off)');
    expect(stdout).toContain('  not offered: "huge": its parameter schema is larger than the 16,000 characters the bot offers');
    expect(stdout).toContain('  not offered: "dup.a": `dup.a` (server `shifty`) and `dup_a` (server `shifty`) both become `shifty__dup_a` for the model');
    expect(stdout).toContain('  not offered: "dup_a": ');
    expect(code).toBe(0);
  });

  it('says which server is not ready and why, with exit code 1', async () => {
    const { code, stdout } = await runScript('src/cli/mcp.ts', ['list', '--wait', '2'], { MCP_SERVERS_FILE: broken, KEYV_URL: 'memory:', ...sandbox });
    expect(stdout).toMatch(/^everything: ready over stdio/m);
    expect(stdout).toMatch(/^gone: (connecting|restarting) \(.+\), 0 tools$/m);
    expect(code).toBe(1);
  });
});

describe('npm run ask with MCP servers', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  const env = () => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'fake', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', KEYV_URL: 'memory:', MCP_SERVERS_FILE: good, ...sandbox });

  it('offers and calls the servers\' tools', async () => {
    server.script({ toolCalls: [{ name: 'everything__echo', arguments: { message: 'from the terminal' } }] }, { content: 'Echoed.' });
    const { code, stdout } = await runScript('src/cli/ask.ts', ['--json', '--protocol', 'native', 'Echo something'], env());
    expect(code).toBe(0);
    const events = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events[0].tools).toContain('everything__echo');
    expect(events.find((e) => e.type === 'observation')).toMatchObject({ tool: 'everything__echo', isError: false, output: 'Echo: from the terminal' });
  });

  it('--no-mcp leaves them out', async () => {
    server.script({ content: 'No tools from outside.' });
    const { code, stdout } = await runScript('src/cli/ask.ts', ['--json', '--no-mcp', 'Hello'], env());
    expect(code).toBe(0);
    const start = JSON.parse(stdout.trim().split('\n')[0]!);
    expect(start.tools.some((t: string) => t.startsWith('everything__'))).toBe(false);
  });
});
