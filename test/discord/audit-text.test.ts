import { describe, expect, it } from 'vitest';
import { formatAuditLog } from '../../src/discord/text/audit-text.js';
import { withAuditEntry } from '../../src/policy/index.js';
import { defaultGuildSettings } from '../../src/state/index.js';

describe('audit log text', () => {
  it('shows who, when and what, newest first', () => {
    let settings = defaultGuildSettings();
    settings = withAuditEntry(settings, { actorId: 'U1', actorName: 'Alice', action: 'tools.disable', detail: 'disabled `calculate` in <#C1>' }, 1_700_000_000_000);
    settings = withAuditEntry(settings, { actorId: 'U2', actorName: 'Bob', action: 'settings.step-limit', detail: 'set the step limit to 3 steps per question' }, 1_700_000_060_000);
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
