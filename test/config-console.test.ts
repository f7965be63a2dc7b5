/**
 * The web console's settings (issue 47): off unless CONSOLE_PORT is set; with it, every setting it
 * needs is required and checked, and all problems are reported together, secrets never printed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const BASE = { DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k' };
const CONSOLE = {
  CONSOLE_PORT: '8443',
  CONSOLE_PUBLIC_URL: 'https://console.example.org',
  DISCORD_APPLICATION_ID: '123456789012345678',
  DISCORD_CLIENT_SECRET: 'client-secret-value',
  CONSOLE_SESSION_SECRET: 'x'.repeat(32),
};
const load = (env: Record<string, string>) => loadConfig({ needDiscord: true, dotenvDir: false }, env);
function problemsOf(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('console settings', () => {
  it('leave the console off when CONSOLE_PORT is unset, whatever else is set', () => {
    expect(load({ ...BASE, CONSOLE_PUBLIC_URL: 'https://x.example' }).console).toBeUndefined();
  });

  it('read a complete console configuration: Secure cookies for https, bound to 127.0.0.1 by default', () => {
    expect(load({ ...BASE, ...CONSOLE, CONSOLE_PUBLIC_URL: 'https://console.example.org/' }).console).toEqual({
      port: 8443, host: '127.0.0.1', publicUrl: 'https://console.example.org', secure: true,
      clientId: '123456789012345678', clientSecret: 'client-secret-value', sessionSecret: 'x'.repeat(32),
    });
  });

  it('name every missing setting at once, with where to get it', () => {
    const problems = problemsOf({ ...BASE, CONSOLE_PORT: '8443' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/CONSOLE_PUBLIC_URL is missing.*OAuth2 → Redirects/);
    expect(problems.join('\n')).toMatch(/DISCORD_APPLICATION_ID is missing/);
    expect(problems.join('\n')).toMatch(/DISCORD_CLIENT_SECRET is missing.*Client Secret/);
    expect(problems.join('\n')).toMatch(/CONSOLE_SESSION_SECRET is missing.*openssl rand/);
  });

  it('refuse a short session secret, plain http beyond loopback and a public URL with a path, never printing a secret', () => {
    const problems = problemsOf({ ...BASE, ...CONSOLE, CONSOLE_SESSION_SECRET: 'short-secret', CONSOLE_PUBLIC_URL: 'http://console.example.org/admin' });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/CONSOLE_SESSION_SECRET is 12 bytes long: use at least 32/);
    expect(problems.join('\n')).toMatch(/must be https.*127\.0\.0\.1 and localhost only/);
    expect(problems.join('\n')).toMatch(/without a path/);
    expect(problems.join('\n')).not.toMatch(/short-secret|client-secret-value/);
  });

  it('take plain http on loopback (not Secure), and the secrets from files', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'console-secrets-'));
    writeFileSync(path.join(dir, 'client'), 'from-a-file\n');
    writeFileSync(path.join(dir, 'session'), `${'s'.repeat(40)}\n`);
    const { DISCORD_CLIENT_SECRET: _c, CONSOLE_SESSION_SECRET: _s, ...rest } = CONSOLE;
    const config = load({ ...BASE, ...rest, CONSOLE_PUBLIC_URL: 'http://127.0.0.1:8443', DISCORD_CLIENT_SECRET_FILE: path.join(dir, 'client'), CONSOLE_SESSION_SECRET_FILE: path.join(dir, 'session') }).console!;
    expect(config).toMatchObject({ secure: false, clientSecret: 'from-a-file', sessionSecret: 's'.repeat(40) });
  });
});
