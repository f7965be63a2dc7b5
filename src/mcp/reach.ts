/**
 * Whether another user can start a stdio server. In `user` mode (sandbox.ts) a server runs as that user,
 * who must be able to enter every folder on the way to the server's command, its script and its working
 * folder, run the command and read the script. A bot installed in a private folder (a home of mode 700,
 * a `mktemp -d` checkout) cannot start its servers that way; found before starting them, it is said in
 * one line naming the folder and the fixes, rather than as "Connection closed" from a server that never ran.
 *
 * Read from the permission bits as the kernel applies them to a user with its one group and no others
 * (setpriv --clear-groups): the owner's bits if it owns the file, else the group's, else everyone's.
 * ACLs are not read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StdioServerConfig } from './server-config.js';

/** The user a server would run as. */
export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
}

/** What stops the user: the path, what it cannot do there, and on the way to what. */
export interface Obstacle {
  path: string;
  cannot: 'enter' | 'read' | 'run';
  /** The permission bits and owner of `path`, to show. */
  mode: number;
  owner: number;
  /** What the user was reaching: the server's command, its script or its working folder, and where it is. */
  reaching: { what: 'command' | 'script' | 'working folder'; path: string };
}

const EXECUTE = 1;
const READ = 4;

/**
 * The first thing that stops `who` starting `config`'s server; undefined when nothing does (or when a
 * path does not exist: starting the server then says so itself).
 */
export function findObstacle(config: StdioServerConfig, who: OtherUser, searchPath = process.env.PATH ?? ''): Obstacle | undefined {
  const cwd = config.cwd ? path.resolve(config.cwd) : process.cwd();
  // Like execvp, the first match along PATH the user can run wins: an obstacle counts only if every match has one.
  const commands = commandCandidates(config.command, cwd, config.env.PATH ?? searchPath).map((file) => blockOn(file, 'run', who, 'command'));
  if (commands.length > 0 && commands.every((found) => found !== undefined)) return commands[0];
  const script = scriptOf(config.args, cwd);
  const scriptObstacle = script ? blockOn(script, 'read', who, 'script') : undefined;
  if (scriptObstacle) return scriptObstacle;
  return config.cwd ? blockOn(cwd, 'enter', who, 'working folder') : undefined;
}

/** The obstacle in one line, for the log, `npm run mcp -- list` and `/tools`: what, where, and the fixes. */
export function describeObstacle(server: string, who: OtherUser, found: Obstacle): string {
  const mode = (found.mode & 0o777).toString(8).padStart(3, '0');
  const fix = found.cannot === 'read' ? 'o+r' : 'o+x';
  const where = found.path === found.reaching.path ? `(its ${found.reaching.what})` : `on the way to its ${found.reaching.what} ${found.reaching.path}`;
  return `MCP server "${server}" cannot start as the sandbox user ${who.name}: ${who.name} cannot ${found.cannot} ${found.path} (mode ${mode}, owner uid ${found.owner}), ${where}. `
    + `Fix: install the server where ${who.name} can reach it (every folder on the way open to others, as /opt is) or chmod ${fix} ${found.path}; `
    + 'or install bubblewrap (MCP_SANDBOX=auto then uses it); or set MCP_SANDBOX=off to run stdio servers unsandboxed.';
}

/** The files `command` may start: itself when it names a path, else each match along PATH. */
function commandCandidates(command: string, cwd: string, searchPath: string): string[] {
  if (command.includes('/')) return [path.resolve(cwd, command)];
  return searchPath.split(':').map((dir) => path.resolve(cwd, dir || '.', command)).filter((file) => statOf(file)?.isFile());
}

/**
 * The script an interpreter is started with: the first argument that is not an option and names an
 * existing file (`node server.js`, `python3 server.py`). Later arguments are the server's own business:
 * they may name files it is meant not to read.
 */
function scriptOf(args: readonly string[], cwd: string): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  if (first === undefined) return undefined;
  const file = path.resolve(cwd, first);
  return statOf(file)?.isFile() ? file : undefined;
}

function blockOn(target: string, need: Obstacle['cannot'], who: OtherUser, what: Obstacle['reaching']['what']): Obstacle | undefined {
  const reaching = { what, path: target };
  const final = statOf(target);
  if (!final) return undefined;
  // Through the path as written, then through where its links lead (both are walked when it is opened).
  const real = realOf(target);
  for (const route of real === target ? [target] : [target, real]) {
    for (const dir of ancestors(route)) {
      const stat = statOf(dir);
      if (stat && !allows(stat, who, EXECUTE)) return { path: dir, cannot: 'enter', mode: stat.mode, owner: stat.uid, reaching };
    }
  }
  // A script started as a command (`#!`) is read by its interpreter, as that user.
  const bits = need === 'read' ? [READ] : need === 'run' && startsWithShebang(target) ? [READ, EXECUTE] : [EXECUTE];
  const missing = bits.find((bit) => !allows(final, who, bit));
  if (missing === undefined) return undefined;
  return { path: real, cannot: missing === READ ? 'read' : need, mode: final.mode, owner: final.uid, reaching };
}

/** Every folder above `file`, from the root down. */
function ancestors(file: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    out.unshift(dir);
    if (dir === path.dirname(dir)) return out;
  }
}

function allows(stat: fs.Stats, who: OtherUser, bit: number): boolean {
  const shift = stat.uid === who.uid ? 6 : stat.gid === who.gid ? 3 : 0;
  return ((stat.mode >> shift) & bit) !== 0;
}

function startsWithShebang(file: string): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(2);
      return fs.readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

function realOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}
