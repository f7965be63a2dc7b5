/**
 * The member memory store on every backend: entries per member per server, cleaned and capped, forgotten,
 * cleared and shared; exact under concurrent adds from two stores over separate connections (as two bot
 * processes hold them), and still there after the storage is opened again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';
import type { Backend } from '../../src/storage/registry.js';
import { openBackend } from '../../src/storage/open.js';
import { createMemberMemoryStore, type MemberMemoryStore } from '../../src/state/member-memory/index.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';
import { fakeClock } from './helpers/stores.js';

const G = '900000000000000001';
const OTHER_G = '900000000000000002';

async function open(url: string): Promise<Backend> {
  return openBackend(url, process.cwd(), { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 }, onBackgroundError: () => {} });
}

for (const target of await targets('memory')) {
  describe.runIf(target.available)(`member memory on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`mem-${target.kind}`);
    const clock = fakeClock();
    let backend: Backend;
    let store: MemberMemoryStore;
    let ids = 0;
    const storeOver = (b: Backend, maxEntries = 50) => createMemberMemoryStore({ backend: b, namespace, now: clock.now, limits: { maxEntries } });

    beforeAll(async () => {
      backend = await open(target.url);
      store = createMemberMemoryStore({ backend, namespace, now: clock.now, newId: () => `e${++ids}` });
    });
    afterAll(async () => {
      await purgeNamespace(backend, namespace);
      await backend.close();
    });

    it('keeps a member\'s entries per server, oldest first, cleaned to one line and capped', async () => {
      expect(await store.list(G, '1')).toEqual([]);
      const first = await store.add(G, '1', 'I deploy\non   Fly.io\u200b', 'asked');
      expect(first).toMatchObject({ status: 'added', shortened: false, entry: { id: 'e1', text: 'I deploy on Fly.io', shared: false, how: 'asked' } });
      clock.advance(1_000);
      const long = await store.add(G, '1', 'x'.repeat(400), 'approved');
      expect(long).toMatchObject({ status: 'added', shortened: true });
      if (long.status === 'added') expect([...long.entry.text]).toHaveLength(300);
      expect((await store.list(G, '1')).map((e) => e.id)).toEqual(['e1', 'e2']);
      // Not across servers, not another member's.
      expect(await store.list(OTHER_G, '1')).toEqual([]);
      expect(await store.list(G, '2')).toEqual([]);
      expect(await store.add(G, '1', '  \u200b ', 'asked')).toEqual({ status: 'empty' });
      expect(await store.add(G, '1', 'i DEPLOY on fly.io!', 'asked')).toMatchObject({ status: 'exists', entry: { id: 'e1' } });
    });

    it('forgets one entry, clears all, and refuses ids that are not there', async () => {
      await store.add(G, '3', 'one', 'asked');
      const two = await store.add(G, '3', 'two', 'asked');
      const id = two.status === 'added' ? two.entry.id : '';
      expect(await store.forget(G, '3', 'nope')).toBeUndefined();
      expect(await store.forget(G, '3', id)).toMatchObject({ text: 'two' });
      expect(await store.forget(G, '3', id)).toBeUndefined();
      expect((await store.list(G, '3')).map((e) => e.text)).toEqual(['one']);
      await store.add(G, '3', 'three', 'asked');
      expect(await store.clear(G, '3')).toBe(2);
      expect(await store.list(G, '3')).toEqual([]);
      expect(await store.add(G, '3', 'after', 'asked')).toMatchObject({ status: 'added' });
      expect((await store.list(G, '3')).map((e) => e.text)).toEqual(['after']);
    });

    it('shares one entry or all of them, and new entries follow the member\'s last choice for all', async () => {
      const a = await store.add(G, '4', 'alpha', 'asked');
      await store.add(G, '4', 'beta', 'asked');
      expect(await store.share(G, '4', true, a.status === 'added' ? a.entry.id : '')).toBe(1);
      expect((await store.list(G, '4')).map((e) => e.shared)).toEqual([true, false]);
      expect(await store.sharesByDefault(G, '4')).toBe(false);
      expect(await store.share(G, '4', true)).toBe(1);
      expect(await store.sharesByDefault(G, '4')).toBe(true);
      await store.add(G, '4', 'gamma', 'asked');
      expect((await store.list(G, '4')).map((e) => e.shared)).toEqual([true, true, true]);
      expect(await store.share(G, '4', false)).toBe(3);
      expect((await store.list(G, '4')).every((e) => !e.shared)).toBe(true);
    });

    it('holds at most 50 entries, and a forgotten one makes room', async () => {
      const capped = storeOver(backend);
      for (let i = 0; i < 50; i++) expect((await capped.add(G, '5', `note ${i}`, 'asked')).status).toBe('added');
      expect(await capped.add(G, '5', 'one too many', 'asked')).toEqual({ status: 'full', maxEntries: 50 });
      const [oldest] = await capped.list(G, '5');
      await capped.forget(G, '5', oldest!.id);
      expect((await capped.add(G, '5', 'fits now', 'asked')).status).toBe('added');
      expect(await capped.list(G, '5')).toHaveLength(50);
    });

    it('loses no entry when two connections add at once, and the cap stays exact', async () => {
      // A second connection to the same storage (for memory: a second store, as two writers in one process).
      const second = target.kind === 'memory' ? backend : await open(target.url);
      try {
        const [a, b] = [storeOver(backend), storeOver(second)];
        const adds = (s: MemberMemoryStore, user: string, label: string, n: number) =>
          Promise.all(Array.from({ length: n }, (_, i) => s.add(G, user, `${label} ${i}`, 'asked')));
        // Under the cap: every entry of both is there.
        await Promise.all([adds(a, '6', 'left', 20), adds(b, '6', 'right', 20)]);
        expect((await a.list(G, '6')).map((e) => e.text).sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `left ${i}`), ...Array.from({ length: 20 }, (_, i) => `right ${i}`)].sort());
        // Past it: 60 adds, exactly 50 stored, and exactly the ones reported added.
        const [left, right] = await Promise.all([adds(a, '7', 'left', 30), adds(b, '7', 'right', 30)]);
        const added = [...left, ...right].filter((o) => o.status === 'added').map((o) => (o.status === 'added' ? o.entry.text : ''));
        const stored = (await b.list(G, '7')).map((e) => e.text);
        expect(stored).toHaveLength(50);
        expect(added.sort()).toEqual([...stored].sort());
        expect([...left, ...right].filter((o) => o.status === 'full')).toHaveLength(10);
      } finally {
        if (second !== backend) await second.close();
      }
    });

    // Memory storage is gone with its process by design: nothing to reopen.
    if (target.kind !== 'memory') it('is still there after the storage is opened again', async () => {
      await store.add(G, '8', 'survives restarts', 'asked');
      const reopened = await open(target.url);
      try {
        expect((await storeOver(reopened).list(G, '8')).map((e) => e.text)).toEqual(['survives restarts']);
      } finally {
        await reopened.close();
      }
    });

    it('skips an unreadable entry and keeps the rest', async () => {
      await store.add(G, '9', 'good', 'asked');
      await backend.append(`${namespace}:mem:${G}:9`, 'not json {');
      await store.add(G, '9', 'also good', 'asked');
      expect((await store.list(G, '9')).map((e) => e.text)).toEqual(['good', 'also good']);
    });
  });
}
