import { describe, expect, it } from 'vitest';
import type { RunScope } from '../../src/policy/index.js';
import { StorageError } from '../../src/errors.js';
import { createToolPolicy } from '../../src/discord/rules/place-rules.js';
import { defaultGuildSettings, type GuildSettings, type GuildSettingsStore } from '../../src/state/index.js';

const TOOLS = [{ name: 'calculate' }, { name: 'wikipedia' }, { name: 'current_time' }, { name: 'read_url', network: true }];
const SCOPE: RunScope = { guildId: 'G1', channelId: 'C1', categoryId: 'K1', userId: 'U1', roleIds: ['R1'] };

/** A settings store in memory whose reads can be made to fail. */
class FakeSettingsStore implements Pick<GuildSettingsStore, 'get'> {
  settings: GuildSettings = defaultGuildSettings();
  failure: Error | undefined;
  reads = 0;

  async get(): Promise<GuildSettings> {
    this.reads += 1;
    if (this.failure) throw this.failure;
    return structuredClone(this.settings);
  }
}

function recordingLogger() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  return { lines, logger: { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) } as never };
}

describe('createToolPolicy', () => {
  it('reads the settings on every call, so a change applies to the next step', async () => {
    const store = new FakeSettingsStore();
    const allowed = createToolPolicy(() => store.get(), TOOLS, recordingLogger().logger);
    expect(await allowed(SCOPE)).toEqual(new Set(['calculate', 'wikipedia', 'current_time']));
    store.settings.toolRules.push({ tool: 'calculate', allow: false, channelId: 'C1' }, { tool: 'read_url', allow: true, roleId: 'R1' });
    expect(await allowed(SCOPE)).toEqual(new Set(['wikipedia', 'current_time', 'read_url']));
    expect(store.reads).toBe(2);
  });

  it('outside a guild gives the built-in defaults without reading any settings', async () => {
    const store = new FakeSettingsStore();
    const allowed = createToolPolicy(() => store.get(), TOOLS, recordingLogger().logger);
    expect(await allowed({ ...SCOPE, guildId: null })).toEqual(new Set(['calculate', 'wikipedia', 'current_time']));
    expect(store.reads).toBe(0);
  });

  it('when the settings cannot be read, falls back to the safe defaults, never enabling a network tool, and logs why', async () => {
    const store = new FakeSettingsStore();
    store.settings.toolRules.push({ tool: 'read_url', allow: true });
    const { lines, logger } = recordingLogger();
    const allowed = createToolPolicy(() => store.get(), TOOLS, logger);
    expect((await allowed(SCOPE)).has('read_url')).toBe(true);

    store.failure = new StorageError('SQLite file is locked');
    const fallback = await allowed(SCOPE);
    expect(fallback).toEqual(new Set(['calculate', 'wikipedia', 'current_time']));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ guildId: 'G1', err: store.failure });
    expect(lines[0]!.message).toMatch(/could not read the tool rules.*built-in safe tools \(no network tools\)/);

    store.failure = undefined;
    expect((await allowed(SCOPE)).has('read_url')).toBe(true);
  });

  it('during a storage failure keeps a tool a moderator turned off switched off, and logs once a minute, not every step', async () => {
    const store = new FakeSettingsStore();
    store.settings.toolRules.push({ tool: 'calculate', allow: false });
    const { lines, logger } = recordingLogger();
    let now = 0;
    const allowed = createToolPolicy(() => store.get(), TOOLS, logger, () => now);
    expect((await allowed(SCOPE)).has('calculate')).toBe(false);

    store.failure = new StorageError('SQLite file is locked');
    for (let step = 0; step < 5; step++) expect(await allowed(SCOPE)).toEqual(new Set(['wikipedia', 'current_time']));
    expect(lines).toHaveLength(1);
    now = 61_000;
    await allowed(SCOPE);
    expect(lines).toHaveLength(2);
  });

  it('only ever names tools that are in the toolbox', async () => {
    const store = new FakeSettingsStore();
    store.settings.toolRules.push({ tool: 'shell', allow: true });
    const allowed = createToolPolicy(() => store.get(), TOOLS, recordingLogger().logger);
    expect([...(await allowed(SCOPE))].every((name) => TOOLS.some((t) => t.name === name))).toBe(true);
  });
});
