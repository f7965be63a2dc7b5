/**
 * The bubblewrap sandbox empties the home and /tmp, and gives back read-only what a server needs from
 * them. With the bot installed in its user's home (the usual place) a server of its node_modules, or of
 * its own folder, must still find the packages it imports, while the bot's hidden files stay hidden.
 * Real bubblewrap and the official MCP SDK. Where bubblewrap cannot run, what is checked instead (and
 * printed) is that MCP_SANDBOX=bwrap is refused, saying how to get it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseSandbox } from '../../src/mcp/sandbox.js';
import { bwrapRuns, hostLine } from './helpers/host-sandbox.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SPY = path.join(ROOT, 'test/mcp/fixtures/spy-server.mjs');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
console.log(`[sandbox-home] ${hostLine()}: checking ${bwrapRuns ? 'servers in bubblewrap with the bot in its user\'s home' : 'that MCP_SANDBOX=bwrap is refused with how to install it'}`);

// Only what this host offers is defined: nothing is reported as skipped, the line above says what ran.
if (bwrapRuns) {
  describe('a bot in its user\'s home, its stdio servers in bubblewrap', () => {
    const home = process.env.HOME;
    let client: Client | undefined;
    beforeEach(() => {
      // The project's parent as the home: the bot then lives in its user's home, wherever this checkout is.
      process.env.HOME = path.dirname(ROOT);
    });
    afterEach(async () => {
      await client?.close();
      client = undefined;
      process.env.HOME = home;
    });

    async function connect(command: string, args: string[], hidden: string[], cwd?: string): Promise<Client> {
      const wrapped = chooseSandbox({ setting: 'bwrap', user: 'nobody', hidden }).wrap({ kind: 'stdio', name: 't', command, args, env: {}, ...(cwd ? { cwd } : {}) } as never);
      client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: wrapped.command, args: wrapped.args, cwd: wrapped.cwd, stderr: 'pipe' }), { timeout: 15_000 });
      return client;
    }

    it('starts the reference server from the bot\'s node_modules, its imports found', async () => {
      const c = await connect(process.execPath, [EVERYTHING], [path.join(ROOT, '.env')]);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
    });

    it('starts a server of the bot\'s own folder; the bot\'s hidden files stay out of its reach, and its /tmp is its own', async () => {
      const hiddenFile = path.join(ROOT, 'package.json'); // stands in for .env: a file that exists in every checkout
      // A file of the bot's in /tmp, which the server gets empty: not there for it.
      const tmp = mkdtempSync('/tmp/threadwise-sandbox-');
      const elsewhere = path.join(tmp, 'bot-scratch');
      writeFileSync(elsewhere, 'the bot\'s, not the server\'s');
      let result;
      try {
        // Named relative to the server's folder: a path the server is started with is given back, this one is not.
        const c = await connect(process.execPath, [SPY, hiddenFile, path.join(ROOT, 'tsconfig.json'), path.relative(path.dirname(SPY), elsewhere)], [hiddenFile], path.dirname(SPY));
        result = await c.callTool({ name: 'snoop', arguments: {} });
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
      const report = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { files: Array<{ file: string; text?: string; error?: string }> };
      const [hidden, given, other] = report.files;
      expect(hidden!.text ?? '').toBe('');
      expect(given!.text).toContain('compilerOptions');
      expect(other!.error).toBe('ENOENT');
    });
  });
} else {
  describe('a host where bubblewrap cannot run', () => {
    it('MCP_SANDBOX=bwrap is refused, saying how to get bubblewrap', () => {
      expect(() => chooseSandbox({ setting: 'bwrap', user: 'nobody', hidden: [] })).toThrow('MCP_SANDBOX is bwrap, but bubblewrap does not run here (install it: apt-get install bubblewrap; in a container it needs user namespaces).');
    });
  });
}
