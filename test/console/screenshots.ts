/**
 * `npm run console:screenshots`: the pictures in docs/console.md, taken by headless Chromium from a bot
 * with its console on (the fake Discord and the fake model server, as in the tests), after a few changes
 * made from the console and from Discord, some usage, and a call waiting for approval.
 */
import fs from 'node:fs';
import path from 'node:path';
import { command, sub } from '../policy/discord-helpers.js';
import { buttonsOf } from '../discord/waiting.js';
import { CHROMIUM, openBrowser } from './browser.js';
import { signIn, startConsoleWorld } from './console-world.js';

const OUT = path.resolve('docs/images');

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  fs.mkdirSync(OUT, { recursive: true });
  const w = await startConsoleWorld({ toolRuns: { calculate: async () => '42' } });
  const browser = await openBrowser();
  try {
    const { fake, guildId, modId } = w;
    // Some history: changes from Discord, usage from members, a call waiting for approval.
    await command(fake, 'tools', sub('enable', { tool: 'read_url', channel: fake.defaults.otherChannelId }), { userId: modId });
    await command(fake, 'tools', sub('approval', { tool: 'calculate', mode: 'ask', channel: fake.defaults.otherChannelId }), { userId: modId });
    const limiter = w.h.app.services.usage.limiter;
    const limits = { runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 0, exempt: false };
    for (const [userId, channelId, tokens] of [[fake.defaults.userId, fake.defaults.channelId, 5200], [fake.defaults.otherUserId, fake.defaults.otherChannelId, 3100], [modId, fake.defaults.channelId, 1800]] as const) {
      for (let run = 0; run < 3; run++) {
        const admitted = await limiter.admit({ guildId, channelId, userId }, limits);
        if (admitted.ok) {
          await admitted.ticket.record({ promptTokens: tokens - 400, completionTokens: 400, totalTokens: tokens }, 'gpt-4o-mini');
          await admitted.ticket.release();
        }
      }
    }
    w.model.script({ content: 'Let me compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '1234 * 5678' } }] }, { content: 'It is 7006652.' });
    fake.sendSlashCommand({ name: 'ask', channelId: fake.defaults.otherChannelId, options: { question: 'What is 1234 × 5678?' } });
    await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && buttonsOf(m).length === 2, 10_000);

    const page = await signIn(w, browser.context, modId);
    await page.screenshot({ path: path.join(OUT, 'console-servers.png') });
    await page.goto(`${w.url}/g/${guildId}/policy`);
    const form = page.locator('form[action$="/policy/tool"]');
    await form.locator('select[name="tool"]').selectOption('calculate');
    await form.locator('select[name="scope"]').selectOption(fake.defaults.channelId);
    await form.locator('select[name="mode"]').selectOption('off');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    await page.screenshot({ path: path.join(OUT, 'console-policy.png'), fullPage: true });
    await page.goto(`${w.url}/g/${guildId}`);
    await page.screenshot({ path: path.join(OUT, 'console-overview.png'), fullPage: true });
    await page.goto(`${w.url}/g/${guildId}/audit`);
    await page.screenshot({ path: path.join(OUT, 'console-audit.png'), fullPage: true });
    await page.goto(`${w.url}/g/${guildId}/approvals`);
    await page.screenshot({ path: path.join(OUT, 'console-approvals.png') });
    // A phone's width: the same pages, readable.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${w.url}/g/${guildId}/audit`);
    await page.screenshot({ path: path.join(OUT, 'console-audit-phone.png') });
    console.log(`Screenshots saved in ${OUT}`);
  } finally {
    await browser.close();
    await w.h.close();
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
