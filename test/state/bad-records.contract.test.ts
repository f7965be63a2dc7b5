import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';
import { fakeClock, openStores, recordingLogger, storesOver, user, type Stores } from './helpers/stores.js';

for (const target of await targets('bad-records')) {
  describe.runIf(target.available)(`bad stored records on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`bad-${target.kind}`);
    const clock = fakeClock();
    const log = recordingLogger();
    let stores: Stores;
    const logOf = (threadId: string) => `${namespace}:conv:${threadId}`;

    beforeAll(async () => {
      stores = await openStores(target.url, { namespace, clock, logger: log.logger });
    });
    afterAll(async () => {
      await purgeNamespace(stores.backend, namespace);
      await stores.backend.close();
    });

    it('sets a corrupt batch aside under a quarantine key, reports it once and loads the rest', async () => {
      await stores.conversations.append('200', [user('before')]);
      await stores.backend.append(logOf('200'), '{"v":1,"at":5,"messages":[{"role":"us');
      await stores.conversations.append('200', [user('after')]);

      const first = await stores.conversations.load('200');
      expect(first.messages.map((m) => m.content)).toEqual(['before', 'after']);
      const reports = log.events.filter((e) => e.code === 'corrupt-record' && e.threadId === '200');
      expect(reports).toHaveLength(1);
      expect(reports[0]!.message).toMatch(/could not be read \(not JSON/);
      const kept = (await stores.backend.keyv.get(reports[0]!.quarantineKey!)) as { raw: string; reason: string };
      expect(kept.raw).toBe('{"v":1,"at":5,"messages":[{"role":"us');

      const second = await stores.conversations.load('200');
      expect(second.messages.map((m) => m.content)).toEqual(['before', 'after']);
      expect(log.events.filter((e) => e.code === 'corrupt-record' && e.threadId === '200')).toHaveLength(1);
    });

    it('sets aside a batch whose JSON has the wrong shape', async () => {
      await stores.backend.append(logOf('201'), JSON.stringify({ v: 1, at: 1, messages: [{ role: 'wizard', content: 'x', at: 1 }] }));
      await stores.conversations.append('201', [user('still here')]);
      expect((await stores.conversations.load('201')).messages.map((m) => m.content)).toEqual(['still here']);
      expect(log.events).toContainEqual(expect.objectContaining({ code: 'corrupt-record', threadId: '201' }));
    });

    it('skips a batch written by a newer version and leaves it untouched', async () => {
      const future = JSON.stringify({ v: 99, at: 1, messagesV99: [] });
      await stores.backend.append(logOf('202'), future);
      await stores.conversations.append('202', [user('current')]);
      expect((await stores.conversations.load('202')).messages.map((m) => m.content)).toEqual(['current']);
      expect(log.events).toContainEqual(expect.objectContaining({ code: 'newer-record', threadId: '202' }));
      expect((await stores.backend.read(logOf('202')))[0]!.raw).toBe(future);
    });

    it('reads a batch in an older format through its migration', async () => {
      const migrating = storesOver(stores.backend, {
        namespace,
        clock,
        logger: log.logger,
        migrations: { 0: (old) => ({ at: old.time, messages: [{ role: 'user', content: old.text, at: old.time }] }) },
      });
      await stores.backend.append(logOf('203'), JSON.stringify({ v: 0, time: 42, text: 'from the old days' }));
      const conversation = await migrating.conversations.load('203');
      expect(conversation.messages).toEqual([{ role: 'user', content: 'from the old days', at: 42 }]);
      expect(log.events).toContainEqual(expect.objectContaining({ code: 'migrated-record', threadId: '203' }));
    });

    it('sets aside an unreadable guild settings record and serves defaults', async () => {
      await stores.backend.keyv.store.set(`${namespace}:guild:300`, '{"value":{"toolRules":"not a list"');
      const settings = await stores.guildSettings.get('300');
      expect(settings.toolRules).toEqual([]);
      const report = log.events.find((e) => e.code === 'corrupt-record' && e.guildId === '300');
      expect(report?.quarantineKey).toBeDefined();
      expect(((await stores.backend.keyv.get(report!.quarantineKey!)) as { raw: string }).raw).toContain('not a list');
    });

    it('sets aside guild settings with fields of the wrong type', async () => {
      await stores.backend.keyv.set(`${namespace}:guild:301`, { v: 1, toolRules: 'all of them' });
      expect((await stores.guildSettings.get('301')).toolRules).toEqual([]);
      expect(log.events).toContainEqual(expect.objectContaining({ code: 'corrupt-record', guildId: '301' }));
    });
  });
}
