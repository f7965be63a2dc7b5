/**
 * `npm run console` on its own: a process of its own over the bot's storage (SQLite here), asking the
 * fake Discord with the bot token through REST. A moderator signs in, reads the policy, changes it
 * (saved in the shared storage, audited as made in the web console), and a plain member is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/state/index.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { CLIENT_SECRET, freePort } from './console-world.js';

let fake: FakeDiscord;
let child: ChildProcess | undefined;
let url: string;
let dir: string;
let modId: string;
let output = '';

/** Sign in over HTTP as the fake's chosen user: the session cookie. */
async function signInCookie(userId: string): Promise<string> {
  fake.oauth.signInAs(userId);
  const login = await fetch(`${url}/auth/login`, { redirect: 'manual' });
  const authorized = await fetch(login.headers.get('location')!, { redirect: 'manual' });
  const back = await fetch(authorized.headers.get('location')!, { redirect: 'manual', headers: { cookie: login.headers.get('set-cookie')!.split(';')[0]! } });
  return back.headers.getSetCookie().find((c) => c.startsWith('tw_session='))!.split(';')[0]!;
}

beforeAll(async () => {
  fake = await FakeDiscord.start({ log: () => undefined });
  const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
  modId = fake.addUser({ username: 'mod', globalName: 'Mod Erator' }).id;
  fake.addMember({ userId: modId, roleIds: [role.id] });
  dir = mkdtempSync(path.join(os.tmpdir(), 'threadwise-console-alone-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  fake.oauth.configure({ clientSecret: CLIENT_SECRET, redirectUris: [`${url}/auth/callback`] });
  child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), `${process.cwd()}/app/console-main.ts`], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info',
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_APPLICATION_ID: fake.applicationId,
      KEYV_URL: `sqlite://${path.join(dir, 'bot.sqlite')}`,
      CONSOLE_PORT: String(port), CONSOLE_PUBLIC_URL: url, DISCORD_CLIENT_SECRET: CLIENT_SECRET, CONSOLE_SESSION_SECRET: 's'.repeat(40),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  for (const end = Date.now() + 30_000; !output.includes('the web console is up'); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`the console did not start:\n${output}`);
  }
}, 40_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('close', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the console on its own (npm run console)', () => {
  it('answers /healthz, lets a moderator change the policy in the shared storage (audited as in the web console), and refuses a plain member', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const cookie = await signInCookie(modId);
    const { guildId, channelId, userId } = fake.defaults;
    const policy = await fetch(`${url}/g/${guildId}/policy`, { headers: { cookie } });
    expect(policy.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await policy.text())![1]!;
    const saved = await fetch(`${url}/g/${guildId}/policy/tool`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, tool: 'wikipedia', scope: channelId, role: '', mode: 'off' }) });
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('Done: disabled <code>wikipedia</code> in <span class="mention channel">#general</span>');
    const storage = await createStorage({ keyvUrl: `sqlite://${path.join(dir, 'bot.sqlite')}`, historyTokenBudget: 8_000 }, { logger: () => {} });
    try {
      const settings = await storage.guildSettings.get(guildId);
      expect(settings.toolRules).toEqual([{ tool: 'wikipedia', allow: false, channelId }]);
      expect(settings.auditLog.at(-1)).toMatchObject({ actorId: modId, action: 'tools.disable', via: 'console' });
    } finally {
      await storage.close();
    }
    const plain = await signInCookie(userId);
    expect((await fetch(`${url}/g/${guildId}/policy`, { headers: { cookie: plain } })).status).toBe(403);
  });
});
