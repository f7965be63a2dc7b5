/**
 * The rules object: what a place's rules are, and every fallback for a store that cannot be read,
 * decided in one file and checked here.
 */
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { createRules } from '../../src/discord/rules/rules.js';
import type { RunScope } from '../../src/policy/index.js';
import { defaultGuildSettings, type GuildSettings, type GuildSettingsStore } from '../../src/state/index.js';

const SCOPE: RunScope = { guildId: 'G1', channelId: 'C1', categoryId: 'K1', userId: 'U1', roleIds: [] };
const DM: RunScope = { ...SCOPE, guildId: null };
const DEFAULT_LIMITS = { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000 };

function world(settings: GuildSettings = defaultGuildSettings()) {
  const store = {
    reads: 0,
    failure: undefined as Error | undefined,
    async get(): Promise<GuildSettings> {
      store.reads += 1;
      if (store.failure) throw store.failure;
      return structuredClone(settings);
    },
  };
  const warnings: string[] = [];
  const rules = createRules({
    guildSettings: store as unknown as GuildSettingsStore,
    defaultLimits: DEFAULT_LIMITS,
    channelDefaults: { maxSteps: 8, model: 'gpt-4o-mini', models: ['gpt-4o-mini'] },
    toolPolicy: () => async () => new Set(['calculate']),
    policyTool: (tool) => ({ askByDefault: tool === 'server__write' }),
    logChannel: async () => '',
    now: () => new Date(0),
    logger: { warn: (_fields: unknown, message: string) => void warnings.push(message) } as never,
  });
  return { store, rules, warnings };
}

describe('the rules of a place', () => {
  it('reads the stored settings once for a turn\'s limits and settings, and a moderator\'s overrides apply', async () => {
    const settings = { ...defaultGuildSettings(), stepLimit: 3, limits: { runsPerHour: 5 } };
    const { store, rules } = world(settings);
    const here = rules.at(SCOPE);
    expect((await here.limits()).runsPerHour).toBe(5);
    expect((await here.settings()).maxSteps).toBe(3);
    expect(store.reads).toBe(1);
  });

  it('approvals are read afresh at every call, and an outside tool not marked read-only waits by default', async () => {
    const { store, rules } = world();
    const here = rules.at(SCOPE);
    expect(await here.approvalMode('server__write')).toBe('ask');
    expect(await here.approvalMode('calculate')).toBe('auto');
    expect(store.reads).toBe(2);
  });

  it('when the store cannot be read: limits are not guessed, settings are the defaults, calls wait for approval', async () => {
    const { store, rules, warnings } = world();
    store.failure = new StorageError('Storage read failed on sqlite (x): SQLITE_BUSY.');
    const here = rules.at(SCOPE);
    await expect(here.limits()).rejects.toBeInstanceOf(StorageError);
    expect(await here.settings()).toMatchObject({ maxSteps: 8, model: 'gpt-4o-mini', display: 'full' });
    expect(await here.approvalMode('calculate')).toBe('ask');
    expect(warnings.length).toBe(2);
  });

  it('outside a server (DMs): the default limits and settings, no approvals, and no store read', async () => {
    const { store, rules } = world();
    const here = rules.at(DM);
    expect(await here.limits()).toMatchObject({ ...DEFAULT_LIMITS, exempt: false });
    expect((await here.settings()).maxSteps).toBe(8);
    expect(await here.approvalMode('calculate')).toBe('auto');
    expect(store.reads).toBe(0);
  });

  it('memory is on by default, off where a moderator turned it off (channel over category over server), and off when unreadable or in a DM', async () => {
    const settings = { ...defaultGuildSettings(), memory: { members: { G1: false, C1: true }, threads: { K1: false } } };
    const { store, rules } = world(settings);
    expect(await rules.at(SCOPE).memory()).toEqual({ members: true, membersSource: 'channel', threads: false, threadsSource: 'category' });
    expect(await rules.at({ ...SCOPE, channelId: 'C2', categoryId: null }).memory()).toMatchObject({ members: false, membersSource: 'server', threads: true, threadsSource: 'default' });
    expect(await rules.at(DM).memory()).toMatchObject({ members: false, threads: false });
    store.failure = new StorageError('Storage read failed on sqlite (x): SQLITE_BUSY.');
    expect(await rules.at(SCOPE).memory()).toMatchObject({ members: false, threads: false });
  });

  it('a call the tool itself holds back waits for approval whatever the rules say', async () => {
    const settings = { ...defaultGuildSettings(), approvalRules: [{ tool: 'remember', allow: true }] };
    const { rules } = world(settings);
    expect(await rules.at(SCOPE).approvalMode('remember')).toBe('auto');
    expect(await rules.at(SCOPE).approvalMode('remember', { required: true })).toBe('ask');
    expect(await rules.at(DM).approvalMode('remember', { required: true })).toBe('ask');
  });
});
