/**
 * The audit log read in pages (rules.auditPage's logic): newest first, filtered by member, channel,
 * action and time, and a cursor that keeps its place when entries are appended meanwhile, also among
 * entries of the same millisecond.
 */
import { describe, expect, it } from 'vitest';
import { auditPage } from '../../src/discord/rules/audit-pages.js';
import type { AuditEntry } from '../../src/state/index.js';

const entry = (at: number, n: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({ at, actorId: 'A', action: 'tools.enable', detail: `change ${n}`, ...extra });

describe('audit pages', () => {
  it('pages newest first, and the cursor holds its place when newer entries arrive, even within one millisecond', () => {
    // Three entries share each millisecond: the cursor must not repeat nor skip any of them.
    const log = Array.from({ length: 9 }, (_, i) => entry(1_000 + Math.floor(i / 3), i));
    const first = auditPage(log, { limit: 4 });
    expect(first.entries.map((e) => e.detail)).toEqual(['change 8', 'change 7', 'change 6', 'change 5']);
    const grown = [...log, entry(2_000, 9), entry(2_000, 10)];
    const second = auditPage(grown, { limit: 4, cursor: first.next });
    expect(second.entries.map((e) => e.detail)).toEqual(['change 4', 'change 3', 'change 2', 'change 1']);
    const third = auditPage(grown, { limit: 4, cursor: second.next });
    expect(third.entries.map((e) => e.detail)).toEqual(['change 0']);
    expect(third.next).toBeUndefined();
  });

  it('filters by member, by a channel the line names, by kind of action and by time', () => {
    const log = [
      entry(1_000, 0, { actorId: 'A', action: 'tools.disable', detail: 'disabled `calculate` in <#111>' }),
      entry(2_000, 1, { actorId: 'B', action: 'settings.model', detail: 'set the model in <#222> to `x`' }),
      entry(3_000, 2, { actorId: 'A', action: 'tools.approval.ask', detail: 'made calls wait in <#111>' }),
      entry(4_000, 3, { actorId: 'A', action: 'toolsy', detail: 'not a tools action' }),
    ];
    const details = (query: Parameters<typeof auditPage>[1]) => auditPage(log, query).entries.map((e) => e.at);
    expect(details({ actorId: 'A' })).toEqual([4_000, 3_000, 1_000]);
    expect(details({ channelId: '111' })).toEqual([3_000, 1_000]);
    expect(details({ action: 'tools' })).toEqual([3_000, 1_000]);
    expect(details({ from: 2_000, to: 4_000 })).toEqual([3_000, 2_000]);
  });
});
