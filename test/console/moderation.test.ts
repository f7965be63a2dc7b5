/**
 * Moderating from the web console in a real browser, with the production defaults and the console on:
 * a change on the policy page reaches the next /ask and the audit log says it was made in the console;
 * a plain member, a member removed from the server and a post without its CSRF token are refused (403);
 * an audit line holding markup shows as text. One bot and one browser for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { askOnce, command, sub } from '../policy/discord-helpers.js';
import { browserTestsRun, openBrowser } from './browser.js';
import { csrfOf, signIn, startConsoleWorld, type ConsoleWorld } from './console-world.js';

describe.skipIf(!browserTestsRun())('moderating from the console', () => {
  let w: ConsoleWorld;
  let browser: { context: BrowserContext; close(): Promise<void> };

  beforeAll(async () => {
    w = await startConsoleWorld();
    browser = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.h.close();
  });

  it('a moderator disables calculate in #general on the policy page: the next /ask there is not offered calculate, and the audit log says it was done in the web console', async () => {
    const before = await askOnce(w, { channelId: w.fake.defaults.channelId });
    expect(before.offered).toContain('calculate');
    const page = await signIn(w, browser.context, w.modId);
    await page.goto(`${w.url}/g/${w.guildId}/policy`);
    const form = page.locator('form[action$="/policy/tool"]');
    await form.locator('select[name="tool"]').selectOption('calculate');
    await form.locator('select[name="scope"]').selectOption(w.fake.defaults.channelId);
    await form.locator('select[name="mode"]').selectOption('off');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').textContent()).toBe('✅ Done: disabled calculate in #general. Runs use it from their next step.');

    const after = await askOnce(w, { channelId: w.fake.defaults.channelId });
    expect(after.offered).not.toContain('calculate');
    // Elsewhere it is still on.
    expect((await askOnce(w, { channelId: w.fake.defaults.otherChannelId })).offered).toContain('calculate');

    await page.goto(`${w.url}/g/${w.guildId}/audit`);
    const line = await page.locator('tbody tr').first().textContent();
    expect(line).toContain('disabled calculate in #general (in the web console)');
    expect(line).toContain('Mod Erator');
    // Discord's own audit command reads the same entry.
    const audit = await command(w.fake, 'tools', sub('audit', { count: 1 }), { userId: w.modId });
    expect(audit.content).toContain('disabled `calculate` in <#' + w.fake.defaults.channelId + '> (in the web console)');
    await page.close();
  });

  it('serves every section of a server to a moderator, asking Discord for the member once a page, under the script-free policy', async () => {
    const page = await signIn(w, browser.context, w.modId);
    const sections = [['', 'Overview'], ['/policy', 'Policy'], ['/audit', 'Audit log'], ['/approvals', 'Waiting approvals'], ['/schedules', 'Scheduled questions'], ['/tools', 'Tools from MCP servers']];
    for (const [path, heading] of sections) {
      const response = await page.goto(`${w.url}/g/${w.guildId}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      expect(await page.locator('h1').textContent()).toBe(heading);
    }
    await page.close();
    // One request, one check of the member (GET guild member): counted on requests of their own, since
    // Chromium may send a navigation twice. The bot may fetch other members meanwhile: only the moderator's count.
    const memberChecks = () => w.fake.restCalls.filter((c) => c.route === 'GET /guilds/:guildId/members/:userId' && c.path.endsWith(`/members/${w.modId}`)).length;
    for (const [path] of sections) {
      const before = memberChecks();
      expect((await browser.context.request.get(`${w.url}/g/${w.guildId}${path}`)).status()).toBe(200);
      expect({ path, checks: memberChecks() - before }).toEqual({ path, checks: 1 });
    }
  });

  it('pauses and resumes a scheduled question from the schedules page, audited as made in the web console', async () => {
    const now = Date.now();
    const added = await w.h.storage.schedules.add({ guildId: w.guildId, channelId: w.fake.defaults.channelId, ownerId: w.fake.defaults.userId, question: 'What is new today?', when: 'every day at 09:00', cron: '0 9 * * *', timeZone: 'UTC', description: 'every day at 09:00', thread: 'new', createdAt: now, activeSince: now }, () => undefined);
    if (!added.ok) throw new Error('could not add a schedule');
    const page = await signIn(w, browser.context, w.modId);
    await page.goto(`${w.url}/g/${w.guildId}/schedules`);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').textContent()).toContain(`Paused ${added.schedule.id}: no runs until someone resumes it`);
    expect((await w.h.storage.schedules.list(w.guildId))[0]!.paused?.byId).toBe(w.modId);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').textContent()).toContain(`Resumed ${added.schedule.id}`);
    const audit = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.filter((e) => e.action.startsWith('schedule.'));
    expect(audit.map((e) => [e.action, e.via])).toEqual([['schedule.pause', 'console'], ['schedule.resume', 'console']]);
    await page.close();
  });

  it('refuses a plain member the server\'s pages and its form posts (403), whatever their own CSRF token', async () => {
    const plain = await openBrowser();
    try {
      const page = await signIn(w, plain.context, w.fake.defaults.userId);
      expect(await page.locator('main').textContent()).toContain('None of your servers can be managed here');
      for (const path of ['', '/policy', '/audit', '/approvals', '/audit.csv']) {
        expect((await page.goto(`${w.url}/g/${w.guildId}${path}`))?.status(), path).toBe(403);
      }
      await page.goto(w.url);
      const posted = await plain.context.request.post(`${w.url}/g/${w.guildId}/policy/tool`, { form: { csrf: await csrfOf(page), tool: 'calculate', scope: 'guild', role: '', mode: 'off' } });
      expect(posted.status()).toBe(403);
      const settings = await w.h.storage.guildSettings.get(w.guildId);
      expect(settings.toolRules.filter((r) => !r.channelId)).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('refuses a form post without its CSRF token (403), changing nothing', async () => {
    const page = await signIn(w, browser.context, w.modId);
    const entries = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.length;
    const posted = await browser.context.request.post(`${w.url}/g/${w.guildId}/policy/tool`, { form: { tool: 'wikipedia', scope: 'guild', role: '', mode: 'off' } });
    expect(posted.status()).toBe(403);
    expect(await posted.text()).toContain('security token is missing or wrong');
    const forged = await browser.context.request.post(`${w.url}/g/${w.guildId}/policy/tool`, { form: { csrf: 'x'.repeat(43), tool: 'wikipedia', scope: 'guild', role: '', mode: 'off' } });
    expect(forged.status()).toBe(403);
    expect((await w.h.storage.guildSettings.get(w.guildId)).auditLog.length).toBe(entries);
    await page.close();
  });

  it('refuses a moderator who loses the role, or is removed from the server, at their next page, keeping their session', async () => {
    const role = [...w.fake.state.roles.values()].find((r) => r.name === 'Moderators')!;
    const carolId = w.fake.addUser({ username: 'carol' }).id;
    w.fake.addMember({ userId: carolId, roleIds: [role.id] });
    const own = await openBrowser();
    try {
      const page = await signIn(w, own.context, carolId);
      expect(await page.locator('ul.servers a').allTextContents()).toEqual(['Test Guild']);
      expect((await page.goto(`${w.url}/g/${w.guildId}/policy`))?.status()).toBe(200);
      // Losing the role is enough: refused at the next page, allowed again once it is back.
      w.fake.setMemberRoles({ userId: carolId, roleIds: [] });
      expect((await page.goto(`${w.url}/g/${w.guildId}/policy`))?.status()).toBe(403);
      expect(await page.locator('main').textContent()).toContain('takes the Manage Server permission there');
      w.fake.setMemberRoles({ userId: carolId, roleIds: [role.id] });
      expect((await page.goto(`${w.url}/g/${w.guildId}/policy`))?.status()).toBe(200);
      w.fake.removeMember({ userId: carolId });
      expect((await page.goto(`${w.url}/g/${w.guildId}/policy`))?.status()).toBe(403);
      expect(await page.locator('main').textContent()).toContain('not a member of this server now');
      await page.goto(w.url);
      expect(await page.locator('header .who').textContent()).toContain('carol');
      expect(await page.locator('main').textContent()).toContain('None of your servers can be managed here');
    } finally {
      await own.close();
    }
  });

  it('shows an audit line holding <script>alert(1)</script> and a masked link as text: no script, no link', async () => {
    const page = await signIn(w, browser.context, w.modId);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${w.url}/g/${w.guildId}/policy`);
    const form = page.locator('form[action$="/policy/setting"]').first();
    await form.locator('select[name="setting"]').selectOption('persona');
    await form.locator('select[name="scope"]').selectOption('guild');
    await form.locator('input[name="value"]').fill('<script>alert(1)</script> [click here](https://evil.example/x) **bold**');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    await page.goto(`${w.url}/g/${w.guildId}/audit`);
    const cell = page.locator('tbody tr').first().locator('td').nth(2);
    expect(await cell.textContent()).toContain('set the persona in the whole server to “<script>alert(1)</script> [click here](https://evil.example/x)');
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.locator('main a[href*="evil.example"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
