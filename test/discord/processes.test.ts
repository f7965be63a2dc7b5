import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { FakeDiscord } from '../fake-discord/index.js';

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('npm run deploy-commands', () => {
  it('registers every command in the configured server and says so', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stdout } = await run('src/discord/deploy-commands.ts', {
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_GUILD_ID: fake.defaults.guildId, OPENAI_API_KEY: 'k',
    });
    expect(stdout).toMatch(/Registered \d+ commands \(\/ask, \/reset, \/help.*\) in server \d+/);
    expect(code).toBe(0);
    const names = fake.commands(fake.defaults.guildId).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['ask', 'reset', 'help']));
  }, 30_000);

  it('registers globally when no server is set', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stdout } = await run('src/discord/deploy-commands.ts', { DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, OPENAI_API_KEY: 'k' });
    expect(code).toBe(0);
    expect(stdout).toContain('globally');
    expect(fake.commands(null).map((c) => c.name)).toContain('ask');
  }, 30_000);
});
