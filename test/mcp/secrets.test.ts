/**
 * Secrets out of reach of MCP servers. The bot (the terminal runner, a process of its own started as
 * an operator would, with its `.env` in its working directory) takes its secrets from files
 * (DISCORD_TOKEN_FILE, OPENAI_API_KEY_FILE), and a stdio server of the test's own
 * (test/mcp/fixtures/spy-server.mjs) tries to steal them: from /proc/<ppid>/environ, every process's
 * environment it can read, the `.env` file and the secret files themselves. It finds the tokens in none
 * of the bot's environment and `.env`, whatever the sandbox; with a sandbox (bubblewrap, or another user
 * where the bot runs as root) the secret files are out of its reach too. Which protections this host
 * has decides which modes run; each prints the protection it exercised. The spy runs from a copy in a
 * fresh folder every user may enter: in the `user` mode it runs as `nobody`, who cannot reach a checkout
 * kept in a private folder (that case is unreachable-server.test.ts's).
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { bwrapRuns, folderWith, hostLine, userModeRuns } from './helpers/host-sandbox.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SPY = path.join(ROOT, 'test/mcp/fixtures/spy-server.mjs');
const TOKEN = 'discord-token-that-must-not-leak.AbCdEf.123456';
const KEY = 'sk-model-key-that-must-not-leak-987654';

const modes = ['auto', ...(bwrapRuns ? ['bwrap'] : []), ...(userModeRuns ? ['user'] : []), 'off'] as const;
console.log(`[secrets] ${hostLine()}: checking MCP_SANDBOX=${modes.join(', ')}`);

let dir: string;
let model: FakeOpenAIServer;
let spy: ReturnType<typeof folderWith>;
beforeAll(async () => {
  spy = folderWith('threadwise-spy-', [SPY], 0o755);
  // The bot's folder, private to its user as an operator keeps it.
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-secrets-'));
  await writeFile(path.join(dir, 'discord_token'), `${TOKEN}\n`, { mode: 0o600 });
  await writeFile(path.join(dir, 'openai_key'), `${KEY}\n`, { mode: 0o600 });
  await writeFile(path.join(dir, 'mcp.json'), JSON.stringify({
    mcpServers: { spy: { command: process.execPath, args: [spy.file('spy-server.mjs'), path.join(dir, '.env'), path.join(dir, 'discord_token'), path.join(dir, 'openai_key')], cwd: spy.dir } },
  }), { mode: 0o600 });
  model = await FakeOpenAIServer.start();
});
afterAll(async () => {
  await model.close();
  await rm(dir, { recursive: true, force: true });
  spy?.remove();
});

interface Attempt { file: string; text?: string; error?: string }
interface Report { pid: number; ppid: number; uid: number; parentEnviron: Attempt; everyEnviron: Attempt[]; files: Attempt[] }

/** `npm run ask` in the bot's folder with MCP_SANDBOX=`mode`: the spy's report and the protection the bot said. */
async function runBot(mode: string): Promise<{ report: Report; protection: string; authorization: string }> {
  await writeFile(path.join(dir, '.env'), [
    'DISCORD_TOKEN_FILE=discord_token',
    'OPENAI_API_KEY_FILE=openai_key',
    `OPENAI_BASE_URL=${model.baseURL}`,
    'OPENAI_MODEL=fake',
    'KEYV_URL=memory:',
    'MCP_SERVERS_FILE=mcp.json',
    `MCP_SANDBOX=${mode}`,
    'TOOL_OUTPUT_MAX_CHARS=1000000',
    'WIKIPEDIA_API_URL=http://127.0.0.1:9/w/api.php',
    'LOG_LEVEL=info',
  ].join('\n'), { mode: 0o600 });
  await chmod(dir, 0o700);
  const before = model.requests.length;
  model.script({ toolCalls: [{ name: 'spy__snoop', arguments: {} }] }, { content: 'Done.' });
  const child = spawn(process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, path.join(ROOT, 'src/cli/ask.ts'), '--json', '--protocol', 'native', 'Look around'], {
    cwd: dir,
    // Only what a shell gives: the secrets are in files, named in .env.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  const observation = stdout.trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.type === 'observation');
  expect(observation, stdout + stderr).toMatchObject({ tool: 'spy__snoop', isError: false });
  const protection = stderr.match(/(Stdio MCP servers run [^\n]*|MCP servers are not sandboxed[^\n]*)/)?.[1] ?? '(not said)';
  return { report: JSON.parse(observation.output) as Report, protection, authorization: String(model.requests[before]!.headers.authorization) };
}

describe('secrets out of reach of stdio MCP servers', () => {
  for (const mode of modes) {
    it(`MCP_SANDBOX=${mode}: the server finds the token and key neither in the bot's environment nor in its .env${mode === 'off' ? '' : ', nor in the secret files'}`, async () => {
      const { report, protection, authorization } = await runBot(mode);
      console.log(`MCP_SANDBOX=${mode}: protection exercised: ${protection}`);
      // The bot did read its key from the file: the model server got it.
      expect(authorization).toBe(`Bearer ${KEY}`);
      const environments = [report.parentEnviron, ...report.everyEnviron].map((a) => a.text ?? '').join('\n');
      for (const secret of [TOKEN, KEY]) expect(environments).not.toContain(secret);
      const dotenv = report.files.find((f) => f.file.endsWith('.env'))!;
      for (const secret of [TOKEN, KEY]) expect(dotenv.text ?? '').not.toContain(secret);
      const secretFiles = report.files.filter((f) => !f.file.endsWith('.env')).map((f) => f.text ?? '').join('\n');
      if (mode === 'off') {
        // Without a sandbox the server runs as the bot's user: the files themselves are its to read.
        expect(protection).toMatch(/^MCP servers are not sandboxed/);
        expect(secretFiles).toContain(TOKEN);
      } else if (protection.startsWith('MCP servers are not sandboxed')) {
        // auto on a host with neither bubblewrap nor root: said plainly, nothing more to check.
        expect(mode).toBe('auto');
      } else {
        for (const secret of [TOKEN, KEY]) expect(secretFiles).not.toContain(secret);
        expect(dotenv.text).toBeUndefined();
        if (protection.includes('bubblewrap')) expect(report.parentEnviron.text ?? '').not.toContain('DISCORD_TOKEN_FILE');
        else expect(report.uid).not.toBe(process.getuid?.());
      }
    }, 60_000);
  }
});
