/**
 * The rules object's named writes and the reads that show settings: the one door to a guild's settings.
 * Each write saves its change and its audit entry in one update and posts the same line to the log
 * channel, so no caller (a command today, the web console next) can change a setting without it. Over a
 * real settings store (in memory), so the store's own validation is part of what is checked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRules, type Rules } from '../../src/discord/rules/rules.js';
import { formatAuditLog } from '../../src/discord/text/audit-text.js';
import { createStorage, type Storage } from '../../src/state/index.js';

const G = 'G1';
const MOD = { id: 'U9', name: 'Mo' };
const DEFAULT_LIMITS = { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000 };
const quiet = { warn: () => undefined } as never;

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

async function world(): Promise<{ rules: Rules; posts: Array<{ channelId: string | undefined; line: string }> }> {
  storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { logger: () => undefined });
  const posts: Array<{ channelId: string | undefined; line: string }> = [];
  const rules = createRules({
    guildSettings: storage.guildSettings,
    defaultLimits: DEFAULT_LIMITS,
    channelDefaults: { maxSteps: 8, model: 'gpt-4o-mini', models: ['gpt-4o-mini', 'big'] },
    toolPolicy: () => async () => new Set(['calculate']),
    policyTool: () => undefined,
    // A log channel called BROKEN cannot be posted to: the note says so, the change stands.
    logChannel: async (_guildId, channelId, line) => {
      if (!channelId) return '';
      posts.push({ channelId, line });
      return channelId === 'BROKEN' ? '\n-# could not post' : '';
    },
    now: () => new Date(Date.UTC(2025, 0, 1)),
    logger: quiet,
  });
  return { rules, posts };
}

describe('the named writes of the rules object', () => {
  it('save the change and its audit entry in one update, and post the same line to the log channel', async () => {
    const { rules, posts } = await world();
    const first = await rules.setLogChannel(G, MOD, 'L1');
    expect(first.detail).toBe('set the moderation log channel to <#L1>');
    const enabled = await rules.setToolMode(G, MOD, { tool: 'read_url', allow: true, target: { channelId: 'C1' } });
    expect(enabled.detail).toBe('enabled `read_url` in <#C1>');
    expect(enabled.settings.toolRules).toEqual([{ tool: 'read_url', allow: true, channelId: 'C1' }]);
    expect(enabled.logNote).toBe('');

    const saved = await rules.snapshot(G);
    expect(saved.logChannelId).toBe('L1');
    expect(saved.auditLog.map((e) => [e.actorId, e.actorName, e.action, e.detail])).toEqual([
      ['U9', 'Mo', 'tools.log-channel', 'set the moderation log channel to <#L1>'],
      ['U9', 'Mo', 'tools.enable', 'enabled `read_url` in <#C1>'],
    ]);
    expect(posts).toEqual([
      { channelId: 'L1', line: '🛠️ **Mo** (<@U9>) set the moderation log channel to <#L1>' },
      { channelId: 'L1', line: '🛠️ **Mo** (<@U9>) enabled `read_url` in <#C1>' },
    ]);
  });

  it('clearing the log channel is posted to the old one, so its readers know why it went quiet; a failed post comes back as a note', async () => {
    const { rules, posts } = await world();
    await rules.setLogChannel(G, MOD, 'BROKEN');
    const cleared = await rules.setLogChannel(G, MOD, null);
    expect(cleared.detail).toBe('cleared the moderation log channel');
    expect(cleared.logNote).toBe('\n-# could not post');
    expect(posts.map((p) => p.channelId)).toEqual(['BROKEN', 'BROKEN']);
    expect((await rules.snapshot(G)).logChannelId).toBeUndefined();
  });

  it('a change made in the web console is recorded and posted as made there', async () => {
    const { rules, posts } = await world();
    await rules.setLogChannel(G, MOD, 'L1');
    await rules.setStepLimit(G, { ...MOD, via: 'console' }, 3);
    const [, entry] = await rules.auditLog(G);
    expect(entry).toMatchObject({ action: 'settings.step-limit', detail: 'set the step limit to 3 steps per question', via: 'console' });
    expect(posts.at(-1)!.line).toBe('🛠️ **Mo** (<@U9>) set the step limit to 3 steps per question (in the web console)');
    expect(formatAuditLog(await rules.auditLog(G), 1)).toContain('set the step limit to 3 steps per question (in the web console)');
  });

  it('a change the store refuses is not saved, not audited and not posted', async () => {
    const { rules, posts } = await world();
    await rules.setLogChannel(G, MOD, 'L1');
    // The settings schema allows 1-50 steps: 0 is refused by the store itself.
    await expect(rules.setStepLimit(G, MOD, 0)).rejects.toThrow();
    const saved = await rules.snapshot(G);
    expect(saved.stepLimit).toBeUndefined();
    expect(saved.auditLog.map((e) => e.action)).toEqual(['tools.log-channel']);
    expect(posts).toHaveLength(1);
  });

  it('a reset with no rule to remove writes nothing, and one that removes rules says which', async () => {
    const { rules } = await world();
    expect(await rules.resetTools(G, MOD, { tool: 'calculate', target: 'everywhere' })).toBeUndefined();
    expect(await rules.auditLog(G)).toEqual([]);
    await rules.setToolMode(G, MOD, { tool: 'calculate', allow: false, target: { categoryId: 'K1' } });
    const reset = await rules.resetTools(G, MOD, { tool: 'calculate', target: 'everywhere' });
    expect(reset?.detail).toBe('reset `calculate` everywhere (removed 1 rule: `calculate` disabled in category <#K1>)');
    expect(reset?.settings.toolRules).toEqual([]);
  });

  it('the settings moderators change per place are keyed by that place, and the whole server by its id', async () => {
    const { rules } = await world();
    expect((await rules.setDisplay(G, MOD, { place: { categoryId: 'K1' }, level: 'answer' })).detail)
      .toBe('set the display level in category <#K1> (channels without their own level) to `answer` (only the answer)');
    expect((await rules.setModel(G, MOD, { place: {}, model: 'big' })).detail).toBe('set the model in the whole server to `big`');
    expect((await rules.setMemory(G, MOD, { place: { channelId: 'C1' }, kinds: ['members'], on: false })).detail).toBe('turned member memory off in <#C1>');
    expect((await rules.setAnswers(G, MOD, { place: { channelId: 'C1' }, mode: null })).detail).toBe('reset where I answer in <#C1> to the default (mentions)');
    const saved = await rules.snapshot(G);
    expect(saved.displayLevels).toEqual({ K1: 'answer' });
    expect(saved.models).toEqual({ G1: 'big' });
    expect(saved.memory?.members).toEqual({ C1: false });
    expect((await rules.at({ guildId: G, channelId: 'C2', categoryId: 'K1', userId: 'U1', roleIds: [] }).settings()).display).toBe('answer');
  });

  it('limits set and reset are audited as such, and the limits of a place follow them', async () => {
    const { rules } = await world();
    const place = { guildId: G, channelId: 'C1', categoryId: null, userId: 'U1', roleIds: ['VIP'] };
    await rules.setLimits(G, MOD, { runsPerHour: 5 });
    await rules.setLimitExemption(G, MOD, { roleId: 'VIP', exempt: true });
    expect(await rules.at(place).limits()).toEqual({ runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 2_000_000, exempt: true });
    expect(await rules.at({ ...place, roleIds: [] }).limits()).toMatchObject({ runsPerHour: 5, exempt: false });
    await rules.setLimits(G, MOD, { runsPerHour: null });
    expect((await rules.auditLog(G)).map((e) => e.action)).toEqual(['settings.limits.set', 'settings.limits.exempt', 'settings.limits.reset']);
    expect(await rules.at({ ...place, roleIds: [] }).limits()).toMatchObject({ runsPerHour: 20 });
  });

  it('an action outside the settings is audited and posted; one recorded without a post (an export) is only in the audit log', async () => {
    const { rules, posts } = await world();
    await rules.setLogChannel(G, MOD, 'L1');
    expect(await rules.recordAction(G, MOD, { action: 'kb.remove', detail: 'removed "Guide" (#3) from the knowledge base' })).toEqual({ logNote: '' });
    await rules.recordAction(G, MOD, { action: 'export', detail: 'exported the conversation of <#T1>' }, { logChannel: false });
    expect((await rules.auditLog(G)).map((e) => e.action)).toEqual(['tools.log-channel', 'kb.remove', 'export']);
    expect(posts.map((p) => p.line)).toEqual([
      '🛠️ **Mo** (<@U9>) set the moderation log channel to <#L1>',
      '🛠️ **Mo** (<@U9>) removed "Guide" (#3) from the knowledge base',
    ]);
  });

  it('the audit log can be read by kind of action and by who did it', async () => {
    const { rules } = await world();
    await rules.setLogChannel(G, MOD, 'L1');
    await rules.setStepLimit(G, { id: 'U2', name: 'Ann' }, 4);
    await rules.setToolMode(G, MOD, { tool: 'calculate', allow: false, target: {} });
    expect((await rules.auditLog(G, { action: 'tools' })).map((e) => e.action)).toEqual(['tools.log-channel', 'tools.disable']);
    expect((await rules.auditLog(G, { action: 'tools.disable' })).map((e) => e.action)).toEqual(['tools.disable']);
    expect((await rules.auditLog(G, { actorId: 'U2' })).map((e) => e.action)).toEqual(['settings.step-limit']);
    // A prefix matches whole words of the action, not part of one.
    expect(await rules.auditLog(G, { action: 'tool' })).toEqual([]);
  });
});
