/**
 * The schedule store on every backend: a guild's schedules in one record, read for many guilds at once,
 * the caller's caps checked inside the serialized change (ten adds at once never pass a cap of five),
 * and changes and removals by id.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { capProblem } from '../../../src/policy/index.js';
import { createStorage, type NewSchedule, type Storage } from '../../../src/state/index.js';
import { purgeSchedules } from '../helpers/schedules.js';
import { targets, uniqueNamespace } from '../helpers/targets.js';

const draft = (over: Partial<NewSchedule> = {}): NewSchedule => ({
  guildId: 'G1', channelId: 'C1', ownerId: 'U1', ownerName: 'Alice', question: 'Open incidents?', when: 'every weekday at 09:00 Europe/Paris',
  cron: '0 9 * * 1-5', timeZone: 'Europe/Paris', description: 'every weekday at 09:00', thread: 'new', createdAt: 1, activeSince: 1, ...over,
});

for (const target of await targets('schedule-store')) {
  describe.runIf(target.available)(`schedule store on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`schedules-${target.kind}`);
    const events: string[] = [];
    let storage: Storage | undefined;
    afterAll(async () => {
      await storage?.close();
      await purgeSchedules(target.url, namespace);
    });
    const open = async () => (storage ??= await createStorage({ keyvUrl: target.url, historyTokenBudget: 8_000 }, { namespace, logger: (e) => events.push(e.code) }));

    it('adds with a short id, lists one guild or many, changes and removes by id', async () => {
      const { schedules } = await open();
      const added = await schedules.add(draft(), () => undefined);
      expect(added.ok).toBe(true);
      const id = added.ok ? added.schedule.id : '';
      expect(id).toMatch(/^[a-z0-9]{5}$/);
      await schedules.add(draft({ guildId: 'G2', ownerId: 'U2' }), () => undefined);
      expect((await schedules.list('G1')).map((s) => s.question)).toEqual(['Open incidents?']);
      const many = await schedules.listMany(['G1', 'G2', 'G3']);
      expect([...many.keys()].sort()).toEqual(['G1', 'G2']);
      const paused = await schedules.update('G1', id, (s) => ({ ...s, paused: { at: 5, reason: 'holidays', byId: 'U1' } }));
      expect(paused?.paused?.reason).toBe('holidays');
      expect((await schedules.list('G1'))[0]!.paused).toEqual({ at: 5, reason: 'holidays', byId: 'U1' });
      expect(await schedules.update('G1', 'nope0', (s) => s)).toBeUndefined();
      expect((await schedules.remove('G1', id))?.id).toBe(id);
      expect(await schedules.list('G1')).toEqual([]);
      expect(await schedules.remove('G1', id)).toBeUndefined();
    });

    it('holds the caps when ten adds arrive at once', async () => {
      const { schedules } = await open();
      const caps = { perServer: 5, perMember: 3, minIntervalMinutes: 15 };
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        schedules.add(draft({ guildId: 'G9', ownerId: `U${i % 2}` }), (existing) => capProblem(existing, `U${i % 2}`, caps))));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      const list = await schedules.list('G9');
      expect(list).toHaveLength(5);
      expect(Math.max(...['U0', 'U1'].map((u) => list.filter((s) => s.ownerId === u).length))).toBe(3);
      expect(results.find((r) => !r.ok)).toEqual({ ok: false, refused: expect.objectContaining({ max: expect.any(Number) }) });
      expect(new Set(list.map((s) => s.id)).size).toBe(5);
    });
  });
}
