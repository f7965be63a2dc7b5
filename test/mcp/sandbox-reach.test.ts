/**
 * Whether the `user` sandbox's user can reach a stdio server, read from real folders and files this test
 * makes (owned by whoever runs it, checked for another user, `nobody`): every folder on the way to the
 * command, the script and the working folder must let it in, the script be readable, the command
 * runnable. Runs on any host: it reads permissions, it starts nothing.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeObstacle, findObstacle } from '../../src/mcp/reach.js';
import type { StdioServerConfig } from '../../src/mcp/index.js';

// Another user than the one running the test (whose files these are): nobody's ids, unless the test runs as nobody.
const other = (own: number | undefined) => (own === 65534 ? 65533 : 65534);
const nobody = { name: 'nobody', uid: other(process.getuid?.()), gid: other(process.getgid?.()) };
let root: string;
let open: string;
let locked: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'threadwise-reach-'));
  chmodSync(root, 0o755);
  open = path.join(root, 'open');
  locked = path.join(root, 'locked');
  // Modes set after writing: the umask (077 for some) must not decide them.
  const files: Array<[string, string, number]> = [];
  for (const dir of [open, locked]) {
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    files.push([path.join(dir, 'server.mjs'), 'process.stdin.resume();\n', 0o644], [path.join(dir, 'secret'), 'not the server\'s\n', 0o600], [path.join(dir, 'bin', 'serve'), '#!/bin/sh\nexec cat\n', 0o755]);
  }
  files.push([path.join(open, 'private.mjs'), '', 0o600]);
  for (const [file, text, mode] of files) {
    writeFileSync(file, text);
    chmodSync(file, mode);
  }
  for (const dir of [open, locked, path.join(open, 'bin'), path.join(locked, 'bin')]) chmodSync(dir, 0o755);
  symlinkSync(path.join(locked, 'server.mjs'), path.join(open, 'link.mjs'));
  chmodSync(locked, 0o700);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const server = (fields: Partial<StdioServerConfig>): StdioServerConfig => ({ kind: 'stdio', name: 'files', command: process.execPath, args: [], env: {}, ...fields });

describe('whether the sandbox user can reach a stdio server', () => {
  it('a script in a private folder (mode 700): the folder is named, on the way to the script, with the fixes, in one line', () => {
    const found = findObstacle(server({ args: [path.join(locked, 'server.mjs')] }), nobody);
    expect(found).toMatchObject({ path: locked, cannot: 'enter', mode: expect.any(Number), reaching: { what: 'script', path: path.join(locked, 'server.mjs') } });
    const line = describeObstacle('files', nobody, found!);
    expect(line).not.toContain('\n');
    expect(line).toContain(`MCP server "files" cannot start as the sandbox user nobody: nobody cannot enter ${locked} (mode 700, owner uid ${process.getuid!()}), on the way to its script ${path.join(locked, 'server.mjs')}.`);
    expect(line).toContain(`chmod o+x ${locked}`);
    expect(line).toContain('install bubblewrap');
    expect(line).toContain('MCP_SANDBOX=off');
  });

  it('the same script in a folder every user may enter: nothing in the way', () => {
    expect(findObstacle(server({ args: [path.join(open, 'server.mjs')], cwd: open }), nobody)).toBeUndefined();
  });

  it('a script only its owner may read: the script is named, and chmod o+r', () => {
    const found = findObstacle(server({ args: ['--enable-source-maps', 'private.mjs'], cwd: open }), nobody)!;
    expect(found).toMatchObject({ path: path.join(open, 'private.mjs'), cannot: 'read', reaching: { what: 'script' } });
    expect(describeObstacle('files', nobody, found)).toContain(`(its script). Fix:`);
    expect(describeObstacle('files', nobody, found)).toContain(`chmod o+r ${path.join(open, 'private.mjs')}`);
  });

  it('a link to a script in a private folder: the folder the link leads into is named', () => {
    expect(findObstacle(server({ args: [path.join(open, 'link.mjs')] }), nobody)).toMatchObject({ path: locked, cannot: 'enter' });
  });

  it('a private working folder is named as such', () => {
    expect(findObstacle(server({ command: '/bin/cat', cwd: locked }), nobody)).toMatchObject({ path: locked, cannot: 'enter', reaching: { what: 'working folder', path: locked } });
  });

  it('a command found along PATH: blocked only when every match is out of reach, as execvp goes on to the next', () => {
    const privateFirst = `${path.join(locked, 'bin')}:${path.join(open, 'bin')}`;
    expect(findObstacle(server({ command: 'serve', env: { PATH: privateFirst } }), nobody)).toBeUndefined();
    expect(findObstacle(server({ command: 'serve', env: { PATH: path.join(locked, 'bin') } }), nobody)).toMatchObject({ path: locked, cannot: 'enter', reaching: { what: 'command', path: path.join(locked, 'bin', 'serve') } });
  });

  it('a command script (#!) the user may run but not read is out of reach: its interpreter reads it as that user', () => {
    const serve = path.join(open, 'bin', 'serve');
    chmodSync(serve, 0o711);
    try {
      expect(findObstacle(server({ command: serve }), nobody)).toMatchObject({ path: serve, cannot: 'read', reaching: { what: 'command' } });
    } finally {
      chmodSync(serve, 0o755);
    }
  });

  it('the server\'s later arguments are its own business: a file it is meant not to read is no obstacle', () => {
    expect(findObstacle(server({ args: [path.join(open, 'server.mjs'), path.join(open, 'secret'), path.join(locked, 'secret')] }), nobody)).toBeUndefined();
  });

  it('what does not exist is left to the start to report (no obstacle invented)', () => {
    expect(findObstacle(server({ command: 'no-such-command-here', args: [path.join(root, 'missing.mjs')] }), nobody)).toBeUndefined();
  });
});
