/**
 * The operator's MCP servers file and how tools are presented: `${VAR}` from the environment, every
 * problem naming the file and the server (start-up stops, like any other bad setting), tool names in the
 * model API's pattern, descriptions cleaned and capped, fingerprints that change with what the model is told.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { modelToolName, parseMcpServers, TOOL_NAME_PATTERN } from '../../src/mcp/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-mcp-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('MCP_SERVERS_FILE', () => {
  it('reads local and remote servers, taking ${VAR} in env and headers from the environment', () => {
    const text = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: '${FILES_TOKEN}', MODE: 'ro-${MODE_SUFFIX}' }, cwd: '/srv' },
        search: { url: 'https://search.example/mcp', headers: { Authorization: 'Bearer ${SEARCH_KEY}' } },
      },
    });
    const { servers, problems } = parseMcpServers(text, 'mcp.json', { FILES_TOKEN: 't0k', MODE_SUFFIX: 'x', SEARCH_KEY: 'k3y' });
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      { kind: 'stdio', name: 'files', command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: 't0k', MODE: 'ro-x' }, cwd: '/srv' },
      { kind: 'http', name: 'search', url: 'https://search.example/mcp', headers: { Authorization: 'Bearer k3y' } },
    ]);
  });

  it('names the file, the server and the problem, every problem at once', () => {
    const text = JSON.stringify({
      mcpServers: {
        'bad name!': { command: 'x' },
        nothing: {},
        web: { url: 'ftp://example.com' },
        secret: { command: 'x', env: { KEY: '${NOT_SET}' }, args: 'oops' },
      },
    });
    const { servers, problems } = parseMcpServers(text, 'mcp.json', {});
    expect(servers).toEqual([]);
    expect(problems).toEqual([
      'MCP_SERVERS_FILE mcp.json, server "bad name!": the name must be 1-32 letters, digits, - or _ (it starts the names of its tools).',
      'MCP_SERVERS_FILE mcp.json, server "nothing": needs "command" (the program that starts it) or "url" (a remote server).',
      'MCP_SERVERS_FILE mcp.json, server "web": "url" must be an http(s) URL (got "ftp://example.com").',
      'MCP_SERVERS_FILE mcp.json, server "secret": "args" must be a list of strings.',
      'MCP_SERVERS_FILE mcp.json, server "secret": "env.KEY" uses ${NOT_SET}, which is not set in the environment.',
    ]);
    expect(parseMcpServers('{"mcpServers": ', 'mcp.json', {}).problems[0]).toMatch(/^MCP_SERVERS_FILE mcp.json is not valid JSON/);
    expect(parseMcpServers('{"servers": {}}', 'mcp.json', {}).problems[0]).toMatch(/must be an object with "mcpServers"/);
  });

  it('a bad file stops start-up with the other configuration problems', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ mcpServers: { x: { url: 'nope' } } }));
    expect(() => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', MCP_SERVERS_FILE: file, AGENT_MAX_STEPS: 'many' }))
      .toThrow(new RegExp(`AGENT_MAX_STEPS[\\s\\S]*MCP_SERVERS_FILE ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, server "x": "url" must be an http\\(s\\) URL`));
    expect(() => loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', MCP_SERVERS_FILE: path.join(dir, 'missing.json') })).toThrow(/MCP_SERVERS_FILE .*missing\.json cannot be read \(ENOENT\)/);
    const good = path.join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ mcpServers: { files: { command: 'x', env: { A: '${A_VALUE}' } } } }));
    expect(loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', MCP_SERVERS_FILE: good, A_VALUE: 'a' }).mcp.servers[0]).toMatchObject({ env: { A: 'a' } });
    expect(loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k' }).mcp.servers).toEqual([]);
  });
});

describe('MCP tools as the model sees them', () => {
  it('names are <server>__<tool> in ^[a-zA-Z0-9_-]{1,64}$, long ones cut with a hash so they stay apart', () => {
    expect(modelToolName('files', 'read_file')).toBe('files__read_file');
    expect(modelToolName('files', 'read.file/v2')).toBe('files__read_file_v2');
    const a = modelToolName('server', `${'x'.repeat(70)}a`);
    const b = modelToolName('server', `${'x'.repeat(70)}b`);
    expect(a).toMatch(TOOL_NAME_PATTERN);
    expect(a).not.toBe(b);
  });
});
