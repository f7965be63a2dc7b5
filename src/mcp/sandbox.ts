/**
 * Keeping stdio MCP servers away from the bot's secrets. A server's environment already holds only its
 * entry's `env`; but a process running as the bot's user can still read the bot's environment from
 * /proc/<pid>/environ and every file the bot can (its `.env`, secret files, its storage). Where the host
 * allows, each stdio server is started inside a sandbox instead (MCP_SANDBOX):
 *
 * - `bwrap` (bubblewrap): its own PID, IPC and UTS namespaces with a fresh /proc (the bot's process is
 *   not there to read), the file system read-only with the bot's `.env`, secret files, servers file and
 *   storage folders hidden, an empty private /tmp and home, the network shared (servers call APIs);
 * - `user`: the server runs as another user (MCP_SANDBOX_USER, default `nobody`) through `setpriv`,
 *   which needs the bot to run as root; that user cannot read the bot's process, nor files kept 0600,
 *   and so must be able to reach the server's own files (reach.ts: a server it cannot reach is not
 *   started, and the reason, naming the folder, is said instead);
 * - none: said plainly, in the log, `npm run mcp -- list` and `/tools`.
 *
 * `auto` takes the first that works here, tried once at start-up.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeObstacle, findObstacle } from './reach.js';
import type { StdioServerConfig } from './server-config.js';

/** How stdio servers are started. */
export interface Sandbox {
  kind: 'bwrap' | 'user' | 'none';
  /** One sentence for people: what keeps the servers from the bot's secrets. */
  describe: string;
  /** The command and arguments that start `config`'s server inside the sandbox. */
  wrap(config: StdioServerConfig): StdioServerConfig;
  /** Why `config`'s server cannot start inside the sandbox, in one line (what, where, the fixes); undefined when it can. */
  blocker(config: StdioServerConfig): string | undefined;
}

export interface SandboxOptions {
  setting: 'auto' | 'bwrap' | 'user' | 'off';
  /** The user of `user` mode. */
  user: string;
  /** Files and folders the server must not see (McpConfig.hiddenPaths). */
  hidden: readonly string[];
  /** Whether a command runs here (tests replace it to pretend a host without bubblewrap). */
  runs?: (command: string, args: string[]) => boolean;
}

const runsHere = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore', timeout: 5_000 }).status === 0;

const BWRAP_BASE = ['--die-with-parent', '--new-session', '--unshare-all', '--share-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];

/** The sandbox for this host and setting. Throws when the setting asks for one that cannot run here. */
export function chooseSandbox(options: SandboxOptions): Sandbox {
  const runs = options.runs ?? runsHere;
  if (options.setting === 'off') return none('MCP_SANDBOX is off');
  const bwrapWorks = () => runs('bwrap', [...BWRAP_BASE, 'true']);
  if (options.setting === 'bwrap' || (options.setting === 'auto' && bwrapWorks())) {
    if (options.setting === 'bwrap' && !bwrapWorks()) throw new Error('MCP_SANDBOX is bwrap, but bubblewrap does not run here (install it: apt-get install bubblewrap; in a container it needs user namespaces).');
    return bubblewrap(options.hidden);
  }
  const uid = numericId(runs, options.user, '-u');
  const gid = numericId(runs, options.user, '-g');
  const userWorks = process.getuid?.() === 0 && uid !== undefined && gid !== undefined && uid !== 0 && runs('setpriv', ['--version']);
  if (options.setting === 'user' && !userWorks) throw new Error(`MCP_SANDBOX is user, but servers cannot be started as "${options.user}" here (the bot must run as root, the user exist, and setpriv be installed).`);
  if (userWorks) return otherUser(options.user, uid!, gid!, options.hidden);
  return none('neither bubblewrap nor another user is available here');
}

function none(why: string): Sandbox {
  return {
    kind: 'none',
    describe: `MCP servers are not sandboxed (${why}): a stdio server runs as the bot's user and could read the bot's files (its .env, secret files, storage); only the environment is kept from it. Keep secrets in *_FILE files and run only servers you trust.`,
    wrap: (config) => config,
    blocker: () => undefined,
  };
}

function bubblewrap(hidden: readonly string[]): Sandbox {
  // Emptied for the server: the home (dotfiles hold tokens: ~/.npmrc, ~/.ssh) and /tmp (its own, private).
  const emptied = [os.homedir(), '/tmp'];
  const emptiedOver = (p: string) => emptied.find((place) => inside(p, place));
  return {
    kind: 'bwrap',
    describe: 'Stdio MCP servers run in a bubblewrap sandbox: their own processes (the bot\'s cannot be read), a read-only file system without the bot\'s .env, secret files, servers file and storage, and an empty home and /tmp.',
    wrap(config) {
      // Given back read-only from the emptied places: Node's own install (nvm puts it in the home), and
      // the packages of the server's folder and of each path it is started with, so that a server in the
      // bot's node_modules, with the bot in its user's home, still finds what it imports.
      const named = [path.dirname(path.dirname(process.execPath)), config.cwd, ...config.args.filter((a) => path.isAbsolute(a)).map((a) => path.dirname(a))];
      const back = [...new Set(named.flatMap((p) => {
        const place = p === undefined ? undefined : emptiedOver(p);
        // Never a whole emptied place (a server started in the home gets an empty one).
        return p !== undefined && place !== undefined && p !== place && !hidden.some((h) => inside(p, h)) ? [packageFolder(p, place)] : [];
      }))];
      const giveBack = back.flatMap((p) => ['--ro-bind-try', p, p]);
      // Hidden last, so nothing given back shows them again; in an emptied place only where given back.
      const hide: string[] = [];
      for (const item of hidden) {
        if (emptiedOver(item) !== undefined && !back.some((p) => inside(item, p))) continue;
        const stat = statOf(item);
        if (stat?.isDirectory()) hide.push('--tmpfs', item);
        else if (stat) hide.push('--ro-bind', '/dev/null', item);
      }
      const args = [...BWRAP_BASE, '--tmpfs', emptied[0]!, ...giveBack, ...hide, ...(config.cwd ? ['--chdir', config.cwd] : []), '--', config.command, ...config.args];
      return { ...config, command: 'bwrap', args };
    },
    // The server runs as the bot's user, over the whole file system read-only: it reaches what the bot does.
    blocker: () => undefined,
  };
}

/**
 * The folder to give back for `dir`: the outermost one above it, below the emptied `place`, that holds a
 * package.json or a node_modules (Node looks for a script's imports in every node_modules above it);
 * `dir` itself where there is none.
 */
function packageFolder(dir: string, place: string): string {
  let found = dir;
  for (let at = dir; at !== place && inside(at, place); at = path.dirname(at)) {
    if (statOf(path.join(at, 'package.json')) || statOf(path.join(at, 'node_modules'))) found = at;
  }
  return found;
}

function otherUser(user: string, uid: number, gid: number, hidden: readonly string[]): Sandbox {
  // This mode protects files only by their permissions: say which hidden ones every user can read.
  const open = hidden.filter((p) => ((statOf(p)?.mode ?? 0) & 0o004) !== 0 && statOf(p)?.isFile());
  const warning = open.length ? ` Warning: ${open.map((p) => path.basename(p)).join(', ')} can be read by every user: chmod 600 them.` : '';
  return {
    kind: 'user',
    describe: `Stdio MCP servers run as the user ${user} (uid ${uid}), who cannot read the bot's process or its files kept private (mode 600).${warning}`,
    wrap: (config) => ({
      ...config,
      command: 'setpriv',
      args: ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--', config.command, ...config.args],
      // The bot's home is not that user's: give it one it can write.
      env: { HOME: os.tmpdir(), ...config.env },
    }),
    blocker(config) {
      const who = { name: user, uid, gid };
      const found = findObstacle(config, who);
      return found && describeObstacle(config.name, who, found);
    },
  };
}

function numericId(runs: SandboxOptions['runs'], user: string, flag: '-u' | '-g'): number | undefined {
  if (runs !== runsHere) return runs!('id', [flag, user]) ? 65534 : undefined;
  const out = spawnSync('id', [flag, user], { encoding: 'utf8', timeout: 5_000 });
  const id = Number(out.stdout.trim());
  return out.status === 0 && Number.isInteger(id) ? id : undefined;
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
