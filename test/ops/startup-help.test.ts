import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fake-discord/index.js';
import { runScript } from '../fakes/run-script.js';
import { startBotProcess } from './helpers/bot-process.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { botPermissionsInteger, inviteUrl } from '../../src/discord/invite.js';

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Settings for `npm start` against the fake Discord; the model server is never reached at start-up. */
const startEnv = (f: FakeDiscord, extra: Record<string, string> = {}) => ({
  DISCORD_TOKEN: f.token, DISCORD_API_BASE_URL: f.apiUrl, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', KEYV_URL: 'memory:', LOG_LEVEL: 'silent', ...extra,
});

describe('start-up help', () => {
  it('registers the commands with only the Discord settings: no model key or server needed', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stdout, stderr } = await runScript('app/deploy-commands.ts', [], {
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_GUILD_ID: fake.defaults.guildId,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Registered \d+ commands/);
    expect(fake.commands(fake.defaults.guildId).map((c) => c.name)).toContain('ask');
  }, 30_000);

  it('deploy-commands with a refused token says to check DISCORD_TOKEN', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stderr } = await runScript('app/deploy-commands.ts', [], { DISCORD_TOKEN: 'not-the-token', DISCORD_API_BASE_URL: fake.apiUrl });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Could not register the commands: Discord refused the bot token \(401 Unauthorized\)\. Check DISCORD_TOKEN: in the Discord Developer Portal, open your application → Bot → Reset Token/);
    expect(fake.commands(null)).toHaveLength(0);
  }, 30_000);

  it('npm start with a refused token says so once, with one full stop, and names DISCORD_TOKEN', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    const { code, stderr } = await runScript('app/main.ts', [], startEnv(fake, { DISCORD_TOKEN: 'not-the-token' }));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Could not start: Discord refused the bot token (401 Unauthorized). Check DISCORD_TOKEN: ' +
        'in the Discord Developer Portal, open your application → Bot → Reset Token, and put the new token in .env (without quotes or a "Bot " prefix).',
    );
    expect(fake.identifies).toHaveLength(0);
  }, 30_000);

  it('npm start asking for Message Content when the portal switch is off names the switch and DISCORD_MESSAGE_CONTENT', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, privilegedIntents: { messageContent: false } });
    const { code, stderr } = await runScript('app/main.ts', [], startEnv(fake, { DISCORD_MESSAGE_CONTENT: 'true' }));
    expect(code).toBe(1);
    expect(stderr).toContain('Could not start: Used disallowed intents. Discord refused the Message Content intent (close code 4014).');
    expect(stderr).toContain('Bot → Privileged Gateway Intents → Message Content Intent');
    expect(stderr).toContain('or set DISCORD_MESSAGE_CONTENT=false');
    expect(stderr).not.toContain('..');
  }, 30_000);

  it('starts without the Message Content intent when DISCORD_MESSAGE_CONTENT is false, whatever the portal says', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, privilegedIntents: { messageContent: false } });
    const bot = startBotProcess(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
      cwd: process.cwd(), env: startEnv(fake, { DISCORD_MESSAGE_CONTENT: 'false', LOG_LEVEL: 'info' }),
    });
    await bot.waitFor(/threadwise is running/, 30_000);
    expect(await bot.stop('SIGTERM')).toBe(0);
    const out = bot.output();
    expect(out).toContain(`"inviteUrl":"${inviteUrl(fake.applicationId)}"`);
  }, 40_000);

  it('asks in the invite link for exactly the permissions the README lists (309237746688)', () => {
    expect(botPermissionsInteger()).toBe(309237746688n);
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain(inviteUrl('YOUR_APPLICATION_ID'));
    expect(readme).toMatch(/View Channel,\s+Send Messages, Create Public Threads, Send Messages in Threads, Read Message History, Attach Files/);
  });

  it('words an open-ended range as "of at least", never with the largest safe integer', () => {
    let problems: string[] = [];
    try {
      loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', OPENAI_TIMEOUT_MS: '5', HEALTH_PORT: '70000', SHARDS: 'lots' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'OPENAI_TIMEOUT_MS must be a whole number of at least 1000 (got "5").',
      'HEALTH_PORT must be a whole number from 0 to 65535 (got "70000").',
      'SHARDS must be auto or a whole number from 1 to 10000 (got "lots").',
    ]);
  });
});
