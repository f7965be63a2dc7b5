/**
 * Headless Chromium for the console's tests: Debian's package (/usr/bin/chromium, which `.ci/run`
 * installs) driven by playwright-core, with a fresh profile and everything that would reach the internet
 * switched off. Without the browser the tests say why and skip, unless CI is set: there they fail.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests run here: the browser is installed, or CI wants them to fail loudly without it. */
export function browserTestsRun(): boolean {
  if (existsSync(CHROMIUM) || process.env.CI) return true;
  console.warn(`Skipping the console's browser tests: ${CHROMIUM} is not installed (apt-get install chromium). With CI set they fail instead.`);
  return false;
}

/** A browser with a profile of its own (no cookies shared with another); `close` removes the profile. */
export async function openBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'threadwise-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
