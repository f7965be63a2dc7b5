/** Secrets from files (`<NAME>_FILE`, the container convention), so they never sit in the bot's environment. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'threadwise-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text, { mode: 0o600 });
  return at;
};
const load = (env: Record<string, string>) => loadConfig({ needDiscord: true, dotenvDir: false }, env);

describe('secrets from files', () => {
  it('reads DISCORD_TOKEN_FILE, OPENAI_API_KEY_FILE and the other secrets without their final line break', () => {
    const config = load({
      DISCORD_TOKEN_FILE: file('token', 'discord-token\n'),
      OPENAI_API_KEY_FILE: file('key', 'sk-key\r\n'),
      BRAVE_API_KEY_FILE: file('brave', 'brave-key'),
      KEYV_URL_FILE: file('keyv', 'postgres://bot:secret@127.0.0.1/db\n'),
    });
    expect(config.discord!.token).toBe('discord-token');
    expect(config.model.apiKey).toBe('sk-key');
    expect(config.tools.webSearch).toMatchObject({ provider: 'brave', apiKey: 'brave-key' });
    expect(config.storage.keyvUrl).toBe('postgres://bot:secret@127.0.0.1/db');
    // A sandboxed MCP server is kept from the files it was read from.
    expect(config.mcp.hiddenPaths).toEqual(expect.arrayContaining([path.join(dir, 'token'), path.join(dir, 'key')]));
  });

  it('a ${VAR} of the servers file may come from VAR_FILE', () => {
    const servers = file('mcp.json', JSON.stringify({ mcpServers: { gh: { command: 'x', env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' } } } }));
    const config = load({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k', MCP_SERVERS_FILE: servers, GITHUB_TOKEN_FILE: file('gh', 'ghp_secret\n') });
    expect(config.mcp.servers[0]).toMatchObject({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' } });
    expect(config.mcp.hiddenPaths).toEqual(expect.arrayContaining([servers, path.join(dir, 'gh')]));
  });

  it('both set, or a file that cannot be read, is a clear problem that names the setting and never the secret', () => {
    expect(() => load({ DISCORD_TOKEN: 'in-env', DISCORD_TOKEN_FILE: file('t2', 'x'), OPENAI_API_KEY: 'k' })).toThrow(/DISCORD_TOKEN and DISCORD_TOKEN_FILE are both set: keep one/);
    expect(() => load({ DISCORD_TOKEN: 't', OPENAI_API_KEY_FILE: path.join(dir, 'missing') })).toThrow(/OPENAI_API_KEY_FILE names .*missing, which cannot be read \(ENOENT\)/);
    expect(() => load({ DISCORD_TOKEN: 't', OPENAI_API_KEY: 'k', MCP_SANDBOX: 'chroot' })).toThrow(/MCP_SANDBOX must be auto, bwrap, user or off/);
  });
});
