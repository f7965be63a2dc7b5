import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../../src/storage/open.js';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';
import type { Backend } from '../../src/storage/registry.js';
import { createWaitingTurnStore, type WaitingTurnRecord, type WaitingTurnStore } from '../../src/state/waiting-turn-store.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';

function record(id: string, over: Partial<WaitingTurnRecord> = {}): WaitingTurnRecord {
  return {
    v: 1, id, guildId: '1', channelId: '2', status: 'waiting', createdAt: 1, expiresAt: 1_000,
    calls: [{ callId: 'c1', tool: 'deploy', described: 'deploy(prod)' }, { callId: 'c2', tool: 'wipe', described: 'wipe()' }],
    turn: { asker: 'alice' }, state: { v: 1, steps: 2 },
    ...over,
  };
}

/** Decide one call, as a button press does: only a call not yet decided takes the decision. */
const decide = (store: WaitingTurnStore, id: string, callId: string, by: string) =>
  store.update(id, (r) => {
    const call = r.calls.find((c) => c.callId === callId);
    if (!call || call.decision || r.status !== 'waiting') return undefined;
    return { ...r, calls: r.calls.map((c) => (c === call ? { ...c, decision: { approved: true, by: { id: by, name: by }, at: 5 } } : c)) };
  });

for (const target of await targets('waiting')) {
  describe.runIf(target.available)(`waiting turns on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`wait-${target.kind}`);
    let backend: Backend;
    let second: Backend | undefined;
    let store: WaitingTurnStore;
    /** Another store over another connection: a second process holding the same data. */
    let other: WaitingTurnStore;
    const open = () => openBackend(target.url, process.cwd(), { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 }, onBackgroundError: () => {} });

    beforeAll(async () => {
      backend = await open();
      store = createWaitingTurnStore(backend, namespace);
      second = target.kind === 'memory' ? undefined : await open();
      other = second ? createWaitingTurnStore(second, namespace) : store;
    });
    afterAll(async () => {
      await purgeNamespace(backend, namespace);
      await second?.close();
      await backend.close();
    });

    it('keeps a waiting turn whole, turn and engine state included, and lists it for the sweep', async () => {
      await store.save(record('t1'));
      expect(await store.get('t1')).toEqual(record('t1'));
      expect(await store.list()).toContainEqual({ id: 't1', guildId: '1', expiresAt: 1_000 });
      expect(await store.get('missing')).toBeUndefined();
    });

    it('two presses at once on the same call: exactly one decision lands, the other sees it made', async () => {
      await store.save(record('t2'));
      const presses = await Promise.all(Array.from({ length: 6 }, (_, i) => decide(i % 2 ? other : store, 't2', 'c1', `mod${i}`)));
      expect(presses.filter((p) => p.changed)).toHaveLength(1);
      const winner = presses.find((p) => p.changed)!.record!.calls[0]!.decision!.by.id;
      const after = await store.get('t2');
      expect(after!.calls[0]!.decision!.by.id).toBe(winner);
      // Decisions on different calls both land (each retried past the other's write).
      const both = await Promise.all([decide(store, 't2', 'c2', 'a'), decide(other, 't2', 'c2', 'b')]);
      expect(both.filter((p) => p.changed)).toHaveLength(1);
      expect((await store.get('t2'))!.calls.every((c) => c.decision)).toBe(true);
    });

    it('removing a turn takes it out of the list; the others stay listed', async () => {
      await store.save(record('t3'));
      await store.save(record('t4'));
      await store.remove('t3');
      const listed = (await store.list()).map((e) => e.id);
      expect(listed).not.toContain('t3');
      expect(listed).toContain('t4');
      expect(await store.get('t3')).toBeUndefined();
      // An update of a removed turn changes nothing.
      expect(await decide(store, 't3', 'c1', 'x')).toEqual({ changed: false });
      for (const id of ['t1', 't2', 't4']) await store.remove(id);
      expect(await store.list()).toEqual([]);
    });

    it('a record this version cannot read is not taken for gone: read says why, where it posts and where its requests are', async () => {
      const key = `${namespace}:waiting:t5`;
      // As a later version would write it: its own version moved on, the rest as it is now.
      await backend.append(key, JSON.stringify({ ...record('t5', { calls: [{ callId: 'c1', tool: 'deploy', described: 'deploy(prod)', messageId: 'm1' }] }), v: 2 }));
      expect(await store.get('t5')).toBeUndefined();
      expect(await other.read('t5')).toEqual({ unreadable: { id: 't5', why: { kind: 'version', v: 2 }, channelId: '2', guildId: '1', expiresAt: 1_000, messageIds: ['m1'] } });
      // Nothing lands on it: an update finds no record it can change.
      expect(await decide(store, 't5', 'c1', 'x')).toEqual({ changed: false });
      // Not JSON at all: damaged, and nothing of where it posts is known.
      await backend.remove(key);
      await backend.append(key, '{"v":1, broken');
      expect(await store.read('t5')).toEqual({ unreadable: { id: 't5', why: { kind: 'damaged', detail: 'not JSON' }, messageIds: [] } });
      await store.remove('t5');
      expect(await store.read('t5')).toBeUndefined();
      expect(await store.read('t1')).toBeUndefined();
    });

    it('reads back a readable record as one', async () => {
      await store.save(record('t6'));
      expect(await other.read('t6')).toEqual({ record: record('t6') });
      await store.remove('t6');
    });

    it('refuses an id that would break the key layout', async () => {
      await expect(store.get('a:b')).rejects.toThrow(/Invalid waiting turn id/);
    });
  });
}
