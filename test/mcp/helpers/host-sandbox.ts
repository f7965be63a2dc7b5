/**
 * What this host offers stdio MCP servers, for suites that must pass on any host (a fresh clone in a
 * private folder, with or without bubblewrap, as root or not) and say in a printed line what they checked.
 * The production checks decide (chooseSandbox, and the sandbox's own `blocker`), so a suite reads the
 * host as the bot would.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseSandbox, type StdioServerConfig } from '../../../src/mcp/index.js';

/** Whether bubblewrap runs here (what MCP_SANDBOX=auto tries first). */
export const bwrapRuns = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--share-net', 'true'], { stdio: 'ignore' }).status === 0;

/** Whether the `user` mode can run here: the tests run as root, with setpriv installed and a `nobody`. */
export const userModeRuns = process.getuid?.() === 0
  && spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0
  && spawnSync('id', ['-u', 'nobody'], { stdio: 'ignore' }).status === 0;

/** This host in a few words, for the printed lines. */
export function hostLine(): string {
  return `bubblewrap ${bwrapRuns ? 'runs' : 'does not run'} here; ${userModeRuns ? 'root with setpriv: the user mode runs' : 'not root (or no setpriv): no user mode'}`;
}

/**
 * The settings for a suite that starts `servers` (its servers file's `mcpServers`) from this checkout
 * (server-everything in node_modules, the fixtures): the default, MCP_SANDBOX=auto, where auto's sandbox reaches them; else MCP_SANDBOX=off.
 * A checkout in a private folder (mode 700) cannot be reached by the `user` mode's user: such a suite is
 * about MCP in Discord or the terminal, not the sandbox, so it runs its servers unsandboxed and says so;
 * the sandbox itself is checked by test/mcp/unreachable-server.test.ts and secrets.test.ts with servers
 * copied where its user can (and cannot) reach them.
 */
export function sandboxSettingFor(suite: string, servers: Record<string, { command: string; args?: string[]; cwd?: string }>): Record<string, string> {
  const sandbox = chooseSandbox({ setting: 'auto', user: 'nobody', hidden: [] });
  const configs = Object.entries(servers).map(([name, s]): StdioServerConfig => ({ kind: 'stdio', name, command: s.command, args: s.args ?? [], env: {}, ...(s.cwd ? { cwd: s.cwd } : {}) }));
  const blocked = configs.map((c) => sandbox.blocker(c)).find((why) => why !== undefined);
  if (!blocked) {
    console.log(`[${suite}] stdio servers under the default MCP_SANDBOX=auto (${sandbox.kind}): ${hostLine()}`);
    return {};
  }
  console.log(`[${suite}] MCP_SANDBOX=off for this suite, as this checkout is out of the sandbox's reach: ${blocked}`);
  return { MCP_SANDBOX: 'off' };
}

/**
 * A fresh folder under the temporary folder holding copies of `files` (readable by every user, whatever
 * the checkout's umask made them), the folder with `mode` (0o755: every user may enter it; 0o700: only this one).
 */
export function folderWith(prefix: string, files: readonly string[], mode: number): { dir: string; file(name: string): string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  for (const file of files) {
    const copy = path.join(dir, path.basename(file));
    copyFileSync(file, copy);
    chmodSync(copy, 0o644);
  }
  chmodSync(dir, mode);
  return { dir, file: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
