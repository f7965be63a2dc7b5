/**
 * Approving a waiting tool call from the web console in a real browser, with the production defaults
 * and the console on: the call runs once, Discord's Approve and Deny buttons go, and a second decision
 * (from another tab showing the same call) is refused with a 409 naming who decided and when.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { isFinalAnswer } from '../discord/harness.js';
import { buttonsOf } from '../discord/waiting.js';
import { browserTestsRun, openBrowser } from './browser.js';
import { signIn, startConsoleWorld, type ConsoleWorld } from './console-world.js';

describe.skipIf(!browserTestsRun())('approvals in the console', () => {
  let w: ConsoleWorld;
  let browser: { context: BrowserContext; close(): Promise<void> };
  /** How many times calculate's code ran. */
  let runs = 0;

  beforeAll(async () => {
    w = await startConsoleWorld({ toolRuns: { calculate: async () => (runs++, '42') } });
    browser = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.h.close();
  });

  it('Approve from the console runs the call once and takes the buttons off in Discord; a second Approve is refused (409) naming who decided and when', async () => {
    const page = await signIn(w, browser.context, w.modId);
    // Made from the console too: calls to calculate wait for approval in #random.
    await page.goto(`${w.url}/g/${w.guildId}/policy`);
    const form = page.locator('form[action$="/policy/tool"]');
    await form.locator('select[name="tool"]').selectOption('calculate');
    await form.locator('select[name="scope"]').selectOption(w.fake.defaults.otherChannelId);
    await form.locator('select[name="mode"]').selectOption('ask');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').textContent()).toContain('made calls to calculate wait for approval in #random');

    w.model.script({ content: 'Let me compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { content: 'It is 42.' });
    const since = w.fake.mark();
    w.fake.sendSlashCommand({ name: 'ask', channelId: w.fake.defaults.otherChannelId, options: { question: 'What is 6 times 7?' }, userId: w.fake.defaults.userId });
    const request = await w.fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && buttonsOf(m).length === 2, 10_000, { since });

    await page.goto(`${w.url}/g/${w.guildId}/approvals`);
    const second = await browser.context.newPage();
    await second.goto(`${w.url}/g/${w.guildId}/approvals`);
    const row = page.locator('tbody tr').first();
    expect(await row.textContent()).toContain('calculate');
    // The call's arguments are shown as data, in code.
    expect((await row.locator('code').allTextContents()).some((t) => t.includes('6 * 7'))).toBe(true);
    await row.getByRole('button', { name: 'Approve' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').textContent()).toBe('Approved: the run goes on.');

    await w.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('42'), 10_000, { since });
    expect(runs).toBe(1);
    expect(buttonsOf(w.fake.message(request.id)!)).toEqual([]);
    expect(w.fake.message(request.id)!.content).toContain('✅ Approved by **Mod Erator**.');

    await second.locator('tbody tr').first().getByRole('button', { name: 'Approve' }).click();
    await second.waitForLoadState();
    expect(await second.locator('h1').textContent()).toBe('Already decided');
    expect(await second.locator('main').textContent()).toMatch(/Approved by Mod Erator at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
    expect(runs).toBe(1);

    // The decision is audited as made in the console.
    const entries = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.filter((e) => e.action === 'tools.approval.approved');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: w.modId, via: 'console' });
    await page.close();
    await second.close();
  });
});
