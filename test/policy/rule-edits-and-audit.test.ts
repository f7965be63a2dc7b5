import { describe, expect, it } from 'vitest';
import {
  describeTarget,
  explainAccess,
  removeToolRules,
  resolveToolAccess,
  setToolRule,
  shadowingRules,
  withAuditEntry,
} from '../../src/policy/index.js';
import { formatAuditLog } from '../../src/discord/audit-text.js';
import { defaultGuildSettings, type ToolRule } from '../../src/state/index.js';

const RULES: ToolRule[] = [
  { tool: 'calculate', allow: false },
  { tool: 'calculate', allow: true, channelId: 'C1' },
  { tool: 'read_url', allow: true, roleId: 'R1' },
  { tool: 'calculate', allow: true, categoryId: 'K1' },
];

describe('rule edits', () => {
  it('enabling a tool for a target replaces that target\'s rule instead of adding a second one', () => {
    const next = setToolRule(RULES, 'calculate', false, { channelId: 'C1' });
    expect(next.filter((r) => r.tool === 'calculate' && r.channelId === 'C1')).toEqual([{ tool: 'calculate', allow: false, channelId: 'C1' }]);
    expect(next).toHaveLength(RULES.length);
  });

  it('a channel rule and a role rule narrowed to that channel are different targets', () => {
    const next = setToolRule(RULES, 'calculate', false, { channelId: 'C1', roleId: 'R1' });
    expect(next).toHaveLength(RULES.length + 1);
  });

  it('reset removes only the rules of the given tool and target, or every rule with everywhere', () => {
    expect(removeToolRules(RULES, 'calculate', {}).removed).toEqual([{ tool: 'calculate', allow: false }]);
    expect(removeToolRules(RULES, undefined, { roleId: 'R1' }).removed).toEqual([RULES[2]]);
    expect(removeToolRules(RULES, 'calculate', 'everywhere').kept).toEqual([RULES[2]]);
    expect(removeToolRules(RULES, undefined, 'everywhere').kept).toEqual([]);
  });

  it('after a server-wide change, the more specific rules that still decide are pointed out', () => {
    expect(shadowingRules(RULES, 'calculate', {})).toEqual([RULES[1], RULES[3]]);
    expect(shadowingRules(RULES, 'calculate', { categoryId: 'K1' })).toEqual([RULES[1]]);
    expect(shadowingRules(RULES, 'read_url', {})).toEqual([RULES[2]]);
    expect(shadowingRules(RULES, 'calculate', { channelId: 'C1' })).toEqual([]);
  });

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

describe('audit log', () => {
  it('records who, when and what, and shows the newest first', () => {
    let settings = defaultGuildSettings();
    settings = withAuditEntry(settings, { actorId: 'U1', actorName: 'Alice', action: 'tools.disable', detail: 'disabled `calculate` in <#C1>' }, 1_700_000_000_000);
    settings = withAuditEntry(settings, { actorId: 'U2', actorName: 'Bob', action: 'settings.step-limit', detail: 'set the step limit to 3 steps per question' }, 1_700_000_060_000);
    expect(settings.auditLog[0]).toEqual({ at: 1_700_000_000_000, actorId: 'U1', actorName: 'Alice', action: 'tools.disable', detail: 'disabled `calculate` in <#C1>' });
    const text = formatAuditLog(settings.auditLog, 10);
    expect(text.split('\n')).toEqual([
      '**Last 2 changes** (newest first, 2 recorded):',
      '<t:1700000060:f> **Bob** (<@U2>) set the step limit to 3 steps per question',
      '<t:1700000000:f> **Alice** (<@U1>) disabled `calculate` in <#C1>',
    ]);
  });

  it('keeps names from formatting or pinging, and fits a long log into one message', () => {
    const entries = Array.from({ length: 25 }, (_, i) => ({ at: i * 1000, actorId: `U${i}`, actorName: '**@everyone**', action: 'x', detail: 'y'.repeat(200) }));
    const text = formatAuditLog(entries, 25);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toContain('older entries; ask for fewer');
    expect(text).not.toContain('@everyone');
    expect(formatAuditLog([], 10)).toMatch(/No changes recorded yet/);
  });
});
