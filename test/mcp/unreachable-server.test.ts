/**
 * A stdio server the `user` sandbox cannot reach, as on a fresh clone in a `mktemp -d` folder (mode 700)
 * run as root without bubblewrap: the server (test/mcp/fixtures/spy-server.mjs, which imports only Node's
 * own modules) copied into a private folder, and beside it the same server copied where every user may
 * enter. `npm run mcp -- list` and the bot itself (`npm start`, as a process, against the fake Discord
 * and the fake model) say in one line which folder stops it and how to fix that, and go on with the other
 * server, started as `nobody`. Where the user mode cannot run at all (not root), what is checked is that
 * asking for it is refused with the reason.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { escapeInline } from '../../src/agent/clean-text.js';
import { isFinalAnswer, productionDefaults } from '../discord/harness.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { runScript } from '../fakes/run-script.js';
import { startBotProcess } from '../ops/helpers/bot-process.js';
import { command, sub } from '../policy/discord-helpers.js';
import { folderWith, hostLine, userModeRuns } from './helpers/host-sandbox.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SPY = path.join(ROOT, 'test/mcp/fixtures/spy-server.mjs');

let work: string;
let file: string;
let locked: ReturnType<typeof folderWith>;
let reachable: ReturnType<typeof folderWith>;
beforeAll(async () => {
  locked = folderWith('threadwise-locked-', [SPY], 0o700);
  reachable = folderWith('threadwise-open-', [SPY], 0o755);
  work = await mkdtemp(path.join(tmpdir(), 'threadwise-unreachable-'));
  file = path.join(work, 'mcp.json');
  await writeFile(file, JSON.stringify({
    mcpServers: {
      locked: { command: process.execPath, args: [locked.file('spy-server.mjs')], cwd: locked.dir },
      open: { command: process.execPath, args: [reachable.file('spy-server.mjs')], cwd: reachable.dir },
    },
  }));
});
afterAll(async () => {
  locked?.remove();
  reachable?.remove();
  await rm(work, { recursive: true, force: true });
});

/** The one line that names the private folder: what stops the server, and every fix. */
function expectReason(line: string): void {
  expect(line).toContain(`MCP server "locked" cannot start as the sandbox user nobody: nobody cannot enter ${locked.dir} (mode 700, owner uid 0), on the way to its script ${locked.file('spy-server.mjs')}.`);
  for (const fix of ['as /opt is', `chmod o+x ${locked.dir}`, 'install bubblewrap', 'MCP_SANDBOX=off']) expect(line).toContain(fix);
}

if (userModeRuns) {
  console.log(`[unreachable-server] ${hostLine()}: checking MCP_SANDBOX=user with a server in a private folder and one nobody can reach`);
  // MCP_SANDBOX=user rather than the default auto: on a host with bubblewrap auto would pick it, and it
  // reaches every folder the bot can; this is about the user mode, which auto picks only without it.
  describe('MCP_SANDBOX=user, one server in a private folder (mode 700), one where nobody can reach it', () => {
    it('npm run mcp -- list names the folder and the fixes in the blocked server\'s one line, and lists the other\'s tools', async () => {
      const { code, stdout, stderr } = await runScript('src/cli/mcp.ts', ['list', '--wait', '10'], { MCP_SERVERS_FILE: file, KEYV_URL: 'memory:', MCP_SANDBOX: 'user' });
      const line = stdout.split('\n').find((l) => l.startsWith('locked: '));
      expect(line, stdout + stderr).toMatch(/^locked: blocked \(MCP server "locked" cannot start .*\), 0 tools$/);
      expectReason(line!);
      expect(stdout).toMatch(/^open: ready over stdio, 1 tools$/m);
      expect(stdout).toContain('  open__snoop [read-only]');
      expect(stdout).toContain('Protection: Stdio MCP servers run as the user nobody (uid 65534)');
      expect(code).toBe(1);
    }, 60_000);

    it('the bot says at start-up, in one log line, which folder stops the server and how to fix it; keeps running; /tools says it too', async () => {
      const fake = await FakeDiscord.start({ log: () => undefined });
      const model = await FakeOpenAIServer.start();
      fake.registerCommands(commands.map((c) => c.data.toJSON()));
      const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
      const modId = fake.addUser({ username: 'mod', globalName: 'Mod Erator' }).id;
      fake.addMember({ userId: modId, roleIds: [role.id] });
      const bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'app/main.ts')], {
        cwd: work,
        env: {
          ...productionDefaults(),
          // In memory, as the harness keeps it; the fakes' addresses.
          KEYV_URL: 'memory:',
          DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k',
          WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php',
          MCP_SERVERS_FILE: file, MCP_SANDBOX: 'user',
        },
      });
      try {
        await bot.waitFor(/threadwise is running/, 90_000);
        const said = bot.output().split('\n').filter((l) => l.includes(`cannot enter ${locked.dir}`));
        expect(said, bot.output()).toHaveLength(1);
        const entry = JSON.parse(said[0]!) as { level: number; server: string; msg: string };
        expect(entry).toMatchObject({ level: 40, server: 'locked' });
        expect(entry.msg).not.toContain('\n');
        expectReason(entry.msg);
        // Not promised to join later: a folder's mode does not change by waiting.
        expect(bot.output()).not.toMatch(/not ready yet[^\n]*locked/);

        const since = fake.mark();
        await command(fake, 'tools', sub('list'), { userId: modId });
        const details = await fake.waitForMessage((m) => m.content.startsWith('**Tools from MCP servers**'), 10_000, { since });
        expect(details.content).toContain('• ⛔ Server `locked` is not started, so its tools are absent: MCP server "locked" cannot start as the sandbox user nobody');
        expect(details.content).toContain(escapeInline(`nobody cannot enter ${locked.dir} (mode 700`, 300));
        expect(details.content).toContain('MCP\\_SANDBOX=off');
        expect(details.content).toContain('• `open__snoop`: MCP server `open` (tool `snoop`), read-only.');
        expect(details.content).toContain('-# Stdio MCP servers run as the user nobody');

        model.script({ content: 'Still here.' });
        const asked = fake.mark();
        fake.sendSlashCommand({ name: 'ask', options: { question: 'Are you there?' } });
        expect((await fake.waitForMessage(isFinalAnswer, 20_000, { since: asked })).content).toContain('Still here.');
        expect((model.requests.at(-1)!.body.tools ?? []).map((t) => t.function.name).filter((n) => n.startsWith('locked__'))).toEqual([]);
      } finally {
        await bot.stop();
        await fake.close();
        await model.close();
      }
    }, 150_000);
  });
} else {
  console.log(`[unreachable-server] ${hostLine()}: checking that MCP_SANDBOX=user is refused with its reason (the reach of folders is checked by sandbox-reach.test.ts)`);
  describe('a host where the user mode cannot run', () => {
    it('MCP_SANDBOX=user is refused at start, saying what the mode needs', async () => {
      const { code, stderr } = await runScript('src/cli/mcp.ts', ['list'], { MCP_SERVERS_FILE: file, KEYV_URL: 'memory:', MCP_SANDBOX: 'user' });
      expect(stderr).toContain('MCP_SANDBOX is user, but servers cannot be started as "nobody" here (the bot must run as root');
      expect(code).toBe(2);
    }, 60_000);
  });
}
