import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { AUDIT_LOG_LIMIT, defaultGuildSettings } from '../../src/state/guild-settings-schema.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';
import { fakeClock, openStores, type Stores } from './helpers/stores.js';

for (const target of await targets('guild-settings')) {
  describe.runIf(target.available)(`guild settings on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`guild-${target.kind}`);
    const clock = fakeClock();
    let stores: Stores;

    beforeAll(async () => {
      stores = await openStores(target.url, { namespace, clock });
    });
    afterAll(async () => {
      await purgeNamespace(stores.backend, namespace);
      await stores.backend.close();
    });

    it('gives a guild nobody configured empty defaults', async () => {
      expect(await stores.guildSettings.get('400')).toEqual(defaultGuildSettings());
      expect(defaultGuildSettings()).toEqual({ v: 1, toolRules: [], displayLevels: {}, auditLog: [] });
    });

    it('saves an update and stamps when it happened', async () => {
      const saved = await stores.guildSettings.update('401', (s) => ({
        ...s,
        stepLimit: 4,
        toolRules: [{ tool: 'read_url', allow: false, channelId: '555' }],
        displayLevels: { '555': 'compact' },
      }));
      expect(saved.updatedAt).toBe(clock.now().getTime());
      expect(await stores.guildSettings.get('401')).toEqual(saved);
    });

    it('applies concurrent updates one after another so none is lost', async () => {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stores.guildSettings.update('402', (s) => ({ ...s, auditLog: [...s.auditLog, { at: i, actorId: '9', action: `change ${i}` }] })),
        ),
      );
      const { auditLog } = await stores.guildSettings.get('402');
      expect(auditLog.map((e) => e.action)).toEqual(Array.from({ length: 20 }, (_, i) => `change ${i}`));
    });

    it('refuses invalid settings and keeps the saved ones', async () => {
      await stores.guildSettings.update('403', (s) => ({ ...s, stepLimit: 3 }));
      await expect(stores.guildSettings.update('403', (s) => ({ ...s, stepLimit: 0 }))).rejects.toBeInstanceOf(StorageError);
      expect((await stores.guildSettings.get('403')).stepLimit).toBe(3);
    });

    it('hands the change function a copy, so a change that throws saves nothing', async () => {
      await expect(
        stores.guildSettings.update('404', (s) => {
          s.toolRules.push({ tool: 'calculate', allow: false });
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow(/changed my mind/);
      expect((await stores.guildSettings.get('404')).toolRules).toEqual([]);
    });

    it('keeps only the newest audit log entries', async () => {
      const many = Array.from({ length: AUDIT_LOG_LIMIT + 10 }, (_, i) => ({ at: i, actorId: '9', action: `a${i}` }));
      const saved = await stores.guildSettings.update('405', (s) => ({ ...s, auditLog: many }));
      expect(saved.auditLog).toHaveLength(AUDIT_LOG_LIMIT);
      expect(saved.auditLog[0]!.action).toBe('a10');
    });

    it('keeps fields it does not know, so later versions can add settings', async () => {
      await stores.guildSettings.update('406', (s) => ({ ...s, welcomeText: 'hi' }));
      expect((await stores.guildSettings.get('406')).welcomeText).toBe('hi');
    });

    it('refuses to overwrite settings saved by a newer version', async () => {
      await stores.backend.keyv.set(`${namespace}:guild:407`, { v: 2, toolRules: [], newThing: true });
      await expect(stores.guildSettings.update('407', (s) => s)).rejects.toThrow(/newer threadwise/);
      expect(await stores.backend.keyv.get(`${namespace}:guild:407`)).toEqual({ v: 2, toolRules: [], newThing: true });
    });
  });
}
