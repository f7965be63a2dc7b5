import { describe, expect, it } from 'vitest';
import { describeTarget, explainAccess } from '../../src/discord/text/rule-text.js';
import { resolveToolAccess } from '../../src/policy/index.js';
import type { ToolRule } from '../../src/state/index.js';

const RULES: ToolRule[] = [
  { tool: 'calculate', allow: false },
  { tool: 'calculate', allow: true, channelId: 'C1' },
  { tool: 'read_url', allow: true, roleId: 'R1' },
  { tool: 'calculate', allow: true, categoryId: 'K1' },
];

describe('rule targets', () => {
  it('targets read as Discord mentions', () => {
    expect(describeTarget({})).toBe('the whole server');
    expect(describeTarget({ channelId: 'C1' })).toBe('<#C1>');
    expect(describeTarget({ categoryId: 'K1' })).toBe('category <#K1>');
    expect(describeTarget({ roleId: 'R1', channelId: 'C1' })).toBe('members with <@&R1> in <#C1>');
  });
});

describe('explanations', () => {
  it('name the deciding rule, and what the place alone would say when a role decided', () => {
    const scope = { channelId: 'C1', categoryId: 'K1', roleIds: ['R1'] };
    const tools = [{ name: 'calculate' }, { name: 'read_url', network: true }, { name: 'wikipedia' }];
    const lines = resolveToolAccess({ toolRules: RULES }, scope, tools).map(explainAccess);
    expect(lines[0]).toBe('✅ `calculate`: channel rule (enabled in <#C1>)');
    expect(lines[1]).toBe('✅ `read_url`: role rule (enabled for members with <@&R1>); without that role it would be off by the built-in default');
    expect(lines[2]).toMatch(/^✅ `wikipedia`: built-in default \(on/);
    const network = resolveToolAccess({ toolRules: [] }, { ...scope, roleIds: [] }, tools).map(explainAccess)[1];
    expect(network).toMatch(/⛔ `read_url`: built-in default \(off: it reaches the web/);
  });
});
