/**
 * A bot with its web console on, for the console's tests: the harness (production defaults) with
 * CONSOLE_PORT and the settings it needs, the fake Discord's OAuth2 side configured with the same client
 * secret and redirect, a moderator (a role with Manage Server), and signing a browser in as someone.
 */
import net from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { startModeration, type ModerationWorld } from '../policy/discord-helpers.js';
import type { HarnessOptions } from '../discord/harness.js';

export const CLIENT_SECRET = 'console-test-client-secret';
const SESSION_SECRET = 'a-session-secret-of-more-than-32-bytes-for-tests';

/** A port nobody listens on now (the public URL must name the port before the console starts). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ConsoleWorld extends ModerationWorld {
  /** Where the console is (CONSOLE_PUBLIC_URL). */
  url: string;
}

/** The moderation world with the console on: CONSOLE_PORT and its settings are the only changes to the production defaults. */
export async function startConsoleWorld(options: HarnessOptions = {}): Promise<ConsoleWorld> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The console is off by default; these are the settings that turn it on (docs/console.md).
  const w = await startModeration({
    ...options,
    env: (fake) => ({
      DISCORD_APPLICATION_ID: fake.applicationId,
      CONSOLE_PORT: String(port),
      CONSOLE_PUBLIC_URL: url,
      DISCORD_CLIENT_SECRET: CLIENT_SECRET,
      CONSOLE_SESSION_SECRET: SESSION_SECRET,
      ...(typeof options.env === 'function' ? options.env(fake) : options.env),
    }),
  });
  w.fake.oauth.configure({ clientSecret: CLIENT_SECRET, redirectUris: [`${url}/auth/callback`] });
  return { ...w, url };
}

/** Sign `context` in as `userId` through the console's button and Discord's (fake) authorize page; the page it lands on. */
export async function signIn(w: ConsoleWorld, context: BrowserContext, userId: string): Promise<Page> {
  w.fake.oauth.signInAs(userId);
  const page = await context.newPage();
  await page.goto(w.url);
  const button = page.getByRole('link', { name: 'Sign in with Discord' });
  // Signed in already (a browser shared by several cases): a new sign-in starts where the button points.
  if (await button.count()) await button.click();
  else await page.goto(`${w.url}/auth/login`);
  // Back on `/` (where it started), signed in: the header names the member.
  await page.locator('header .who').waitFor();
  await page.waitForLoadState('load');
  return page;
}

/** The CSRF token of a signed-in page (every form carries it; the sign-out form always is there). */
export async function csrfOf(page: Page): Promise<string> {
  return (await page.locator('input[name="csrf"]').first().getAttribute('value')) ?? '';
}
