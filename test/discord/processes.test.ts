import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { FakeDiscord } from '../fake-discord/index.js';
import { runScript } from '../fakes/run-script.js';

const run = (script: string, env: Record<string, string>) => runScript(script, [], env);

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('npm run deploy-commands', () => {
  it('registers every command in the configured server and says so', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stdout } = await run('app/deploy-commands.ts', {
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_GUILD_ID: fake.defaults.guildId, OPENAI_API_KEY: 'k',
    });
    expect(stdout).toMatch(/Registered \d+ commands \(\/ask, \/reset, \/help.*\) in server \d+/);
    // A message-menu command is named as people find it, not as a slash command.
    expect(stdout).toContain('Apps → Add to knowledge base (on a message)');
    expect(stdout).toContain('Apps → Ask about this message (on a message)');
    expect(stdout).not.toContain('/Add to knowledge base');
    expect(code).toBe(0);
    const names = fake.commands(fake.defaults.guildId).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['ask', 'reset', 'help']));
  }, 30_000);

  it('registers globally when no server is set', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stdout } = await run('app/deploy-commands.ts', { DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, OPENAI_API_KEY: 'k' });
    expect(code).toBe(0);
    expect(stdout).toContain('globally');
    expect(fake.commands(null).map((c) => c.name)).toContain('ask');
  }, 30_000);
});

describe('npm start', () => {
  it('exits non-zero naming each missing setting and where to get it', async () => {
    const { code, stderr } = await run('app/main.ts', {});
    expect(code).toBe(1);
    expect(stderr).toMatch(/OPENAI_API_KEY is missing \(set it, or OPENAI_API_KEY_FILE to a file holding it\)\. Get it from/);
    expect(stderr).toMatch(/DISCORD_TOKEN is missing \(set it, or DISCORD_TOKEN_FILE to a file holding it\)\. Get it from Discord Developer Portal/);
    expect(stderr).toContain('Copy .env.example to .env');
  }, 30_000);

  it('connects to Discord with a filled configuration and shuts down cleanly on SIGTERM', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp(`${(process.env.TMPDIR ?? '/tmp')}/threadwise-start-`));
    // Run from an empty directory, as a deployment would; tsx is resolved from the project.
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), `${process.cwd()}/app/main.ts`], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl,
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', KEYV_URL: 'sqlite://data/bot.sqlite', LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stdout += d));
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const check = setInterval(() => {
        if (stdout.includes('threadwise is running')) resolve();
        else if (Date.now() - started > 25_000) reject(new Error(`the bot did not start:\n${stdout}`));
        else return;
        clearInterval(check);
      }, 50);
    });
    expect(fake.identifies).toHaveLength(1);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('shutting down');
    expect(stdout).toMatch(/"storage":"[^"]*threadwise-start-[^"]*\/data\/bot\.sqlite"/);
    // The knowledge base shares the KEYV_URL SQLite file.
    expect(stdout).toMatch(/"knowledge":"[^"]*threadwise-start-[^"]*\/data\/bot\.sqlite"/);
  }, 40_000);
});
