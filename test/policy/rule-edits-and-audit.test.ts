import { describe, expect, it } from 'vitest';
import { removeToolRules, setToolRule, shadowingRules, withAuditEntry } from '../../src/policy/index.js';
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

});

describe('audit log', () => {
  // How the log reads in Discord is tested in test/discord/audit-text.test.ts.
  it('records who, when and what, oldest first', () => {
    let settings = defaultGuildSettings();
    settings = withAuditEntry(settings, { actorId: 'U1', actorName: 'Alice', action: 'tools.disable', detail: 'disabled `calculate` in <#C1>' }, 1_700_000_000_000);
    settings = withAuditEntry(settings, { actorId: 'U2', actorName: 'Bob', action: 'settings.step-limit', detail: 'set the step limit to 3 steps per question' }, 1_700_000_060_000);
    expect(settings.auditLog[0]).toEqual({ at: 1_700_000_000_000, actorId: 'U1', actorName: 'Alice', action: 'tools.disable', detail: 'disabled `calculate` in <#C1>' });
    expect(settings.auditLog.map((e) => e.actorId)).toEqual(['U1', 'U2']);
  });
});
