import { describe, expect, it } from 'vitest';
import { enabledToolNames, resolveToolAccess, type AccessScope, type AccessSource } from '../../src/policy/index.js';
import type { ToolRule } from '../../src/state/index.js';

const TOOLS = [{ name: 'calculate' }, { name: 'wikipedia' }, { name: 'current_time' }, { name: 'read_url', network: true }];
/** A run in channel C1 (category K1) started by a member with role R1. */
const HERE: AccessScope = { channelId: 'C1', categoryId: 'K1', roleIds: ['R1'] };

function verdict(rules: ToolRule[], tool: string, scope: AccessScope = HERE) {
  const access = resolveToolAccess({ toolRules: rules }, scope, TOOLS).find((a) => a.tool === tool)!;
  return { enabled: access.enabled, source: access.source, rule: access.rule };
}

type Row = [sentence: string, rules: ToolRule[], tool: string, enabled: boolean, source: AccessSource];

const calcOff = (extra: Partial<ToolRule> = {}): ToolRule => ({ tool: 'calculate', allow: false, ...extra });
const calcOn = (extra: Partial<ToolRule> = {}): ToolRule => ({ tool: 'calculate', allow: true, ...extra });
const readOn = (extra: Partial<ToolRule> = {}): ToolRule => ({ tool: 'read_url', allow: true, ...extra });
const readOff = (extra: Partial<ToolRule> = {}): ToolRule => ({ tool: 'read_url', allow: false, ...extra });

const PRECEDENCE: Row[] = [
  ['with no rules a safe tool is on by the built-in default', [], 'calculate', true, 'default'],
  ['with no rules a network tool is off by the built-in default', [], 'read_url', false, 'default'],
  ['a server rule beats the built-in default', [calcOff()], 'calculate', false, 'server'],
  ['a server rule can turn a network tool on', [readOn()], 'read_url', true, 'server'],
  ['a category rule beats a server rule', [calcOff(), calcOn({ categoryId: 'K1' })], 'calculate', true, 'category'],
  ['a channel rule beats a category rule', [calcOn({ categoryId: 'K1' }), calcOff({ channelId: 'C1' })], 'calculate', false, 'channel'],
  ['a channel rule beats a server rule listed after it', [calcOff({ channelId: 'C1' }), calcOn()], 'calculate', false, 'channel'],
  ['a channel rule for another channel does not apply here', [calcOff({ channelId: 'C2' })], 'calculate', true, 'default'],
  ['a category rule for another category does not apply here', [calcOff({ categoryId: 'K2' })], 'calculate', true, 'default'],
  ['among rules for the same place the newest counts', [calcOff({ channelId: 'C1' }), calcOn({ channelId: 'C1' })], 'calculate', true, 'channel'],
  ['a role allow turns on a tool the place leaves off', [readOn({ roleId: 'R1' })], 'read_url', true, 'role'],
  ['a role rule for a role the member lacks does not apply', [readOn({ roleId: 'R9' })], 'read_url', false, 'default'],
  ['a role allow beats a channel deny', [readOff({ channelId: 'C1' }), readOn({ roleId: 'R1' })], 'read_url', true, 'role'],
  ['a role deny beats a channel allow', [calcOn({ channelId: 'C1' }), calcOff({ roleId: 'R1' })], 'calculate', false, 'role'],
  ['a role rule narrowed to another channel does not apply here', [readOn({ roleId: 'R1', channelId: 'C2' })], 'read_url', false, 'default'],
  ['a role rule narrowed to this category applies', [readOn({ roleId: 'R1', categoryId: 'K1' })], 'read_url', true, 'role'],
  ['rules for other tools change nothing', [readOn(), { tool: 'wikipedia', allow: false }], 'calculate', true, 'default'],
];

describe('resolveToolAccess precedence', () => {
  it.each(PRECEDENCE)('%s', (_sentence, rules, tool, enabled, source) => {
    expect(verdict(rules, tool)).toMatchObject({ enabled, source });
  });

  it('names the rule that decided', () => {
    const rule = calcOff({ channelId: 'C1' });
    expect(verdict([calcOn(), rule], 'calculate').rule).toEqual(rule);
    expect(verdict([], 'calculate').rule).toBeUndefined();
  });

  it('says what the place alone would have decided when a role rule wins', () => {
    const deny = calcOff({ channelId: 'C1' });
    const [access] = resolveToolAccess({ toolRules: [deny, calcOn({ roleId: 'R1' })] }, HERE, [{ name: 'calculate' }]);
    expect(access!.overridden).toEqual({ enabled: false, source: 'channel', rule: deny });
  });
});

describe('role rules', () => {
  const both: AccessScope = { ...HERE, roleIds: ['R1', 'R2'] };

  it('when the member has two roles that disagree, deny wins whatever the order', () => {
    expect(verdict([readOn({ roleId: 'R1' }), readOff({ roleId: 'R2' })], 'read_url', both)).toMatchObject({ enabled: false, source: 'role' });
    expect(verdict([readOff({ roleId: 'R2' }), readOn({ roleId: 'R1' })], 'read_url', both)).toMatchObject({ enabled: false, source: 'role' });
  });

  it('a narrower role deny removes a tool that a server-wide role allow grants', () => {
    const rules = [readOn({ roleId: 'R1' }), readOff({ roleId: 'R1', channelId: 'C1' })];
    expect(verdict(rules, 'read_url')).toMatchObject({ enabled: false, source: 'role' });
    expect(verdict(rules, 'read_url', { ...HERE, channelId: 'C2' })).toMatchObject({ enabled: true, source: 'role' });
  });

  it('only the roles of the member who started the run count', () => {
    const rules = [readOn({ roleId: 'R1' })];
    expect(verdict(rules, 'read_url', { ...HERE, roleIds: [] })).toMatchObject({ enabled: false, source: 'default' });
  });
});

describe('resolveToolAccess output', () => {
  it('lists every tool of the toolbox in its order and ignores rules for tools it does not have', () => {
    const access = resolveToolAccess({ toolRules: [{ tool: 'shell', allow: true }] }, HERE, TOOLS);
    expect(access.map((a) => a.tool)).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url']);
    expect(enabledToolNames(access)).toEqual(new Set(['calculate', 'wikipedia', 'current_time']));
  });

  it('a run outside any category is not matched by category rules', () => {
    expect(verdict([calcOff({ categoryId: 'K1' })], 'calculate', { ...HERE, categoryId: null })).toMatchObject({ enabled: true, source: 'default' });
  });
});
