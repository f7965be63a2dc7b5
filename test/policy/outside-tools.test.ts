/**
 * Tools from outside (MCP servers) in the policy: a tool list that changes while the bot runs, off by
 * default, never among the safe tools when storage fails, approval `ask` by default unless read-only,
 * and suspended while their fingerprint differs from the one pinned when a moderator enabled them.
 */
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { approvalMode, toolsNeedingApproval, type PolicyTool, type RunScope } from '../../src/policy/index.js';
import { createToolPolicy, type SuspendedTool } from '../../src/discord/rules/place-rules.js';
import { defaultGuildSettings, type GuildSettings } from '../../src/state/index.js';

const SCOPE: RunScope = { guildId: 'G1', channelId: 'C1', categoryId: 'K1', userId: 'U1', roleIds: [] };
const quiet = { warn: () => undefined };

function world() {
  let settings: GuildSettings = { ...defaultGuildSettings(), logChannelId: 'L1' };
  let failing = false;
  const tools: PolicyTool[] = [{ name: 'calculate' }, { name: 'srv__lookup', network: true, askByDefault: false, fingerprint: 'v1' }];
  const suspended: SuspendedTool[] = [];
  const store = {
    get: async () => {
      if (failing) throw new StorageError('down');
      return structuredClone(settings);
    },
  };
  const policy = createToolPolicy(() => store.get(), () => tools, quiet, Date.now, (s) => suspended.push(s));
  return {
    policy,
    tools,
    suspended,
    set: (change: Partial<GuildSettings>) => (settings = { ...settings, ...change }),
    fail: () => (failing = true),
  };
}

describe('outside tools in the policy', () => {
  it('are off until enabled, and on once enabled with the fingerprint pinned', async () => {
    const w = world();
    expect([...(await w.policy(SCOPE))]).toEqual(['calculate']);
    w.set({ toolRules: [{ tool: 'srv__lookup', allow: true }], toolPins: { srv__lookup: 'v1' } });
    expect([...(await w.policy(SCOPE))]).toEqual(['calculate', 'srv__lookup']);
  });

  it('a tool that joins later is seen on the next call (the list is read each time)', async () => {
    const w = world();
    w.set({ toolRules: [{ tool: 'late__tool', allow: true }], toolPins: { late__tool: 'x' } });
    expect(await w.policy(SCOPE)).not.toContain('late__tool');
    w.tools.push({ name: 'late__tool', network: true, fingerprint: 'x' });
    expect(await w.policy(SCOPE)).toContain('late__tool');
  });

  it('a changed fingerprint suspends the tool and is reported once per change', async () => {
    const w = world();
    w.set({ toolRules: [{ tool: 'srv__lookup', allow: true }], toolPins: { srv__lookup: 'v1' } });
    w.tools[1] = { ...w.tools[1]!, fingerprint: 'v2' };
    expect(await w.policy(SCOPE)).not.toContain('srv__lookup');
    expect(await w.policy(SCOPE)).not.toContain('srv__lookup');
    expect(w.suspended).toEqual([{ guildId: 'G1', tool: 'srv__lookup', logChannelId: 'L1' }]);
    w.set({ toolPins: { srv__lookup: 'v2' } });
    expect(await w.policy(SCOPE)).toContain('srv__lookup');
    w.tools[1] = { ...w.tools[1]!, fingerprint: 'v3' };
    expect(await w.policy(SCOPE)).not.toContain('srv__lookup');
    expect(w.suspended).toHaveLength(2);
  });

  it('an enable rule without a pin does not turn it on (it was never enabled through /tools enable)', async () => {
    const w = world();
    w.set({ toolRules: [{ tool: 'srv__lookup', allow: true }] });
    expect(await w.policy(SCOPE)).not.toContain('srv__lookup');
  });

  it('are never among the safe tools when the rules cannot be read', async () => {
    const w = world();
    w.set({ toolRules: [{ tool: 'srv__lookup', allow: true }], toolPins: { srv__lookup: 'v1' } });
    expect(await w.policy(SCOPE)).toContain('srv__lookup');
    w.fail();
    expect([...(await w.policy(SCOPE))]).toEqual(['calculate']);
  });

  it('approval defaults to ask for tools that say so, and moderators can change it either way', () => {
    const settings = defaultGuildSettings();
    const writer = { name: 'srv__write', askByDefault: true };
    const reader = { name: 'srv__read', askByDefault: false };
    expect(approvalMode(settings, SCOPE, writer)).toEqual({ mode: 'ask', source: 'default' });
    expect(approvalMode(settings, SCOPE, reader).mode).toBe('auto');
    expect(toolsNeedingApproval(settings, SCOPE, [writer, reader, 'calculate'])).toEqual(['srv__write']);
    const changed = { approvalRules: [{ tool: 'srv__write', allow: true }, { tool: 'srv__read', allow: false, channelId: 'C1' }] };
    expect(approvalMode(changed, SCOPE, writer)).toEqual({ mode: 'auto', source: 'server' });
    expect(approvalMode(changed, SCOPE, reader)).toEqual({ mode: 'ask', source: 'channel' });
  });
});
