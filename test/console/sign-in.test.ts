/**
 * Signing in to the web console in a real browser (headless Chromium) against the fake Discord's OAuth2
 * side, with the production defaults and the console on: state and PKCE are checked, a wrong state is
 * refused, the member's token is revoked at once, the cookie's flags, the sign-in rate limit, and what
 * the server list holds (only servers where the member has Manage Server now). One bot for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browserTestsRun, openBrowser } from './browser.js';
import { CLIENT_SECRET, startConsoleWorld, signIn, type ConsoleWorld } from './console-world.js';
import { consoleDeps } from '../../app/console.js';
import { clientDiscord } from '../../src/console/discord-reads.js';
import { createConsoleApp } from '../../src/console/server.js';
import { silentLogger } from '../../src/logger.js';

describe.skipIf(!browserTestsRun())('signing in to the console', () => {
  let w: ConsoleWorld;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let otherGuildId: string;

  beforeAll(async () => {
    w = await startConsoleWorld();
    // A second server where the moderator is a plain member: the bot is there, the right is not.
    otherGuildId = w.fake.addGuild({ name: 'Other Guild' }).id;
    w.fake.addMember({ guildId: otherGuildId, userId: w.modId });
    browser = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.h.close();
  });

  it('signs in with state and PKCE (S256), revokes the member\'s token at once, and lists only the servers the member manages now', async () => {
    const exchangesBefore = w.fake.oauth.exchanges.length;
    const page = await signIn(w, browser.context, w.modId);
    const asked = w.fake.oauth.authorizations.at(-1)!;
    expect(asked.get('scope')).toBe('identify guilds');
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('state')?.length).toBeGreaterThanOrEqual(32);
    const exchange = w.fake.oauth.exchanges[exchangesBefore]!;
    expect(exchange).toMatchObject({ grantType: 'authorization_code', hadVerifier: true, status: 200 });
    expect(w.fake.oauth.liveTokens).toBe(0);
    expect(await page.locator('h1').textContent()).toBe('Your servers');
    const servers = await page.locator('ul.servers a').allTextContents();
    expect(servers).toEqual(['Test Guild']);
    // The other server is refused outright, whatever its address.
    const refused = await page.goto(`${w.url}/g/${otherGuildId}`);
    expect(refused?.status()).toBe(403);
    expect(await page.locator('main').textContent()).toContain('Manage Server permission');
    await page.close();
  });

  it('refuses an answer from Discord whose state is not the one this browser started with, exchanging nothing', async () => {
    // Start a sign-in (its state cookie set) without following it to Discord.
    const started = await browser.context.request.get(`${w.url}/auth/login`, { maxRedirects: 0 });
    expect(started.status()).toBe(302);
    const exchanges = w.fake.oauth.exchanges.length;
    const page = await browser.context.newPage();
    const answer = await page.goto(`${w.url}/auth/callback?code=stolen-code&state=not-the-state-we-sent`);
    expect(answer?.status()).toBe(403);
    expect(await page.locator('main').textContent()).toContain('its state does not match');
    expect(w.fake.oauth.exchanges.length).toBe(exchanges);
    await page.close();
  });

  it('keeps the session in an HttpOnly, SameSite=Lax cookie (not Secure over plain http on loopback), and serves pages under a script-free CSP', async () => {
    const cookie = (await browser.context.cookies(w.url)).find((c) => c.name === 'tw_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    const response = await browser.context.request.get(`${w.url}/`);
    expect(response.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers()['content-security-policy']).not.toContain('script-src');
    expect(response.headers()['x-frame-options']).toBe('DENY');
  });

  it('over https marks both cookies Secure and names them __Host- (the browser then refuses them on plain http or another host)', async () => {
    // The same console, as it would be behind TLS: only the public URL differs.
    const publicUrl = 'https://console.example.test';
    w.fake.oauth.configure({ clientSecret: CLIENT_SECRET, redirectUris: [`${w.url}/auth/callback`, `${publicUrl}/auth/callback`] });
    const { services, storage } = w.h.app;
    const parts = { storage, rules: services.rules, limiter: services.usage.limiter, discord: clientDiscord(w.h.app.bot.client), schedules: { ...services.schedules, rules: services.rules, logger: silentLogger() }, messageContent: true, logger: silentLogger(), now: () => new Date() };
    const { app, close } = createConsoleApp(consoleDeps({ ...w.h.config.console!, publicUrl, secure: true }, w.h.config.discord!.apiBaseUrl, parts));
    try {
      w.fake.oauth.signInAs(w.modId);
      const login = await app.request(`${publicUrl}/auth/login`);
      const signInCookie = login.headers.get('set-cookie')!;
      expect(signInCookie).toMatch(/^__Host-tw_signin=.*; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      const authorized = await fetch(login.headers.get('location')!, { redirect: 'manual' });
      const back = new URL(authorized.headers.get('location')!);
      expect(back.origin).toBe(publicUrl);
      const callback = await app.request(back.toString(), { headers: { cookie: signInCookie.split(';')[0]! } });
      expect(callback.status).toBe(302);
      const session = callback.headers.getSetCookie().find((c) => c.startsWith('__Host-tw_session='))!;
      expect(session).toMatch(/; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      expect(callback.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      close();
    }
  });

  it('signing out ends the member\'s sessions everywhere: another browser signed in as them is signed out at its next request', async () => {
    const other = await openBrowser();
    try {
      const here = await signIn(w, browser.context, w.modId);
      const there = await signIn(w, other.context, w.modId);
      await here.getByRole('button', { name: 'Sign out' }).click();
      await here.waitForURL(`${w.url}/`);
      expect(await here.getByRole('link', { name: 'Sign in with Discord' }).count()).toBe(1);
      await there.goto(`${w.url}/g/${w.guildId}/policy`);
      expect(new URL(there.url()).pathname).toBe('/');
      expect(await there.getByRole('link', { name: 'Sign in with Discord' }).count()).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('answers 429 past 20 sign-ins a minute from one address', async () => {
    // The cases above started a few already this minute: 21 more cross the limit whatever they were.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await fetch(`${w.url}/auth/login`, { redirect: 'manual' })).status);
    const first = statuses.indexOf(429);
    expect(first).toBeGreaterThan(0);
    expect(statuses.slice(0, first).every((s) => s === 302)).toBe(true);
    expect(statuses.slice(first).every((s) => s === 429)).toBe(true);
    const refused = await fetch(`${w.url}/auth/login`, { redirect: 'manual' });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('More than 20 sign-ins were started from your address in the last minute');
  });
});
