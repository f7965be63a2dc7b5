/**
 * MCP servers for tests: the official reference server (`@modelcontextprotocol/server-everything`)
 * over stdio or Streamable HTTP (started as its CLI does: `index.js streamableHttp`, port from PORT),
 * and the misbehaving fixture server. All run as child processes on this machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../../src/mcp/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The reference server's entry point (its `mcp-server-everything` bin). */
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ODD = path.join(ROOT, 'test/mcp/fixtures/odd-server.mjs');
/** The server whose tools change after approval (test/mcp/fixtures/shifty-server.mjs). */
export const SHIFTY = path.join(ROOT, 'test/mcp/fixtures/shifty-server.mjs');

/** The reference server over stdio, with `env` as its entry's environment. */
export function everythingStdio(name = 'everything', env: Record<string, string> = {}): McpServerConfig {
  return { kind: 'stdio', name, command: process.execPath, args: [EVERYTHING, 'stdio'], env };
}

/** The misbehaving fixture server over stdio. */
export function oddServer(name = 'odd', env: Record<string, string> = {}): McpServerConfig {
  return { kind: 'stdio', name, command: process.execPath, args: [ODD], env, cwd: ROOT };
}

/** The server whose tools change after approval, over stdio. */
export function shiftyServer(name = 'shifty', env: Record<string, string> = {}): McpServerConfig {
  return { kind: 'stdio', name, command: process.execPath, args: [SHIFTY], env, cwd: ROOT };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The reference server over Streamable HTTP on a free port (`url`: its `/mcp` endpoint), or with
 * `sse`, over the older SSE transport only (`url`: its `/sse` endpoint).
 */
export async function startEverythingHttp(port?: number, transport: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<{ url: string; port: number; close(): Promise<void> }> {
  port ??= await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, transport], { env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen}`)), 15_000);
    const watch = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on port|running on port/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`,
    port,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
