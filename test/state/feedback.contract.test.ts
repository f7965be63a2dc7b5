/**
 * The feedback store on every backend: an answered turn's record round trip, one vote per member
 * (changeable; two members at once through two connections both land), the day index a summary reads,
 * the text gone after `/reset` or a deleted question (the counts stay), a member's votes for their
 * export, and the conversation TTL (an expired record reads as gone; a day past it is swept).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../../src/storage/key-value.js';
import { openBackend } from '../../src/storage/open.js';
import type { Backend } from '../../src/storage/registry.js';
import { createFeedbackStore, type AnsweredTurn, type FeedbackStore } from '../../src/state/feedback/index.js';
import type { StorageEvent } from '../../src/state/index.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';

const DAY = 86_400_000;
const START = Date.parse('2025-03-10T12:00:00Z');

function answered(id: string, over: Partial<AnsweredTurn> = {}): AnsweredTurn {
  return {
    id, guildId: 'g1', channelId: 'c1', threadId: 'th1', messageId: `m-${id}`, at: START, askedAt: START - 5_000,
    question: `Question ${id}?`, questionIds: [], answer: `Answer ${id}.`, model: 'gpt-4o-mini', offered: ['calculate', 'wikipedia'],
    tools: ['calculate'], steps: 2, tokens: { prompt: 100, completion: 20, total: 120 }, latencyMs: 900,
    ...over,
  };
}

for (const target of await targets('feedback')) {
  describe.runIf(target.available)(`feedback on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`fb-${target.kind}`);
    let backend: Backend;
    let second: Backend | undefined;
    let clock = START;
    const events: StorageEvent[] = [];
    const storeOver = (b: Backend, ttlMs?: number) => createFeedbackStore({ backend: b, namespace, ttlMs, now: () => new Date(clock), logger: (e) => events.push(e) });
    let store: FeedbackStore;
    /** The same data through another connection: a second process. */
    let other: FeedbackStore;
    const open = () => openBackend(target.url, process.cwd(), { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 }, onBackgroundError: () => {} });

    beforeAll(async () => {
      backend = await open();
      store = storeOver(backend);
      second = target.kind === 'memory' ? undefined : await open();
      other = second ? storeOver(second) : store;
    });
    afterAll(async () => {
      await purgeNamespace(backend, namespace);
      await second?.close();
      await backend.close();
    });

    it('keeps an answered turn whole with no votes, and lists a guild\'s answers by day, newest first', async () => {
      clock = START;
      await store.save(answered('a1', { guildId: 'gl', at: START - 3 * DAY }));
      await store.save(answered('a2', { guildId: 'gl', at: START - DAY }));
      await store.save(answered('a3', { guildId: 'gl', at: START }));
      expect(await store.get('gl', 'a3')).toEqual({ v: 1, ...answered('a3', { guildId: 'gl' }), votes: {} });
      expect(await store.get('gl', 'nope')).toBeUndefined();
      const week = await store.list('gl', START - 7 * DAY, 100);
      expect(week.records.map((r) => r.id)).toEqual(['a3', 'a2', 'a1']);
      expect(week.more).toBe(false);
      expect((await store.list('gl', START - 2 * DAY, 100)).records.map((r) => r.id)).toEqual(['a3', 'a2']);
      const capped = await store.list('gl', START - 7 * DAY, 2);
      expect(capped).toMatchObject({ more: true });
      expect(capped.records.map((r) => r.id)).toEqual(['a3', 'a2']);
      // Another guild's answers are not this one's.
      expect((await store.list('g-other', START - 7 * DAY, 100)).records).toEqual([]);
    });

    it('one vote per member, changeable: a 👎 keeps its reason when pressed again, a 👍 drops it', async () => {
      await store.save(answered('v1'));
      expect(await store.vote('g1', 'v1', 'alice', { vote: 'down', reason: 'Wrong number.' }, 1)).toMatchObject({ status: 'recorded' });
      expect(await store.vote('g1', 'v1', 'alice', { vote: 'down' }, 2)).toMatchObject({ status: 'recorded', before: 'down' });
      expect((await store.get('g1', 'v1'))!.votes.alice).toEqual({ vote: 'down', reason: 'Wrong number.', at: 1 });
      expect(await store.vote('g1', 'v1', 'alice', { vote: 'up' }, 3)).toMatchObject({ status: 'recorded', before: 'down' });
      expect(await store.vote('g1', 'v1', 'bob', { vote: 'down', reason: '' }, 4)).toMatchObject({ status: 'recorded' });
      expect((await store.get('g1', 'v1'))!.votes).toEqual({ alice: { vote: 'up', at: 3 }, bob: { vote: 'down', at: 4 } });
      expect(await store.vote('g1', 'gone', 'alice', { vote: 'up' })).toEqual({ status: 'missing' });
    });

    it('the first vote names the message it was pressed on as the answer\'s link; an answer that was not posted is removed', async () => {
      await store.save(answered('l1', { messageId: undefined }));
      await store.vote('g1', 'l1', 'alice', { vote: 'up', on: 'msg-last' });
      await store.vote('g1', 'l1', 'bob', { vote: 'up', on: 'msg-other' });
      expect((await store.get('g1', 'l1'))!.messageId).toBe('msg-last');
      await other.remove('g1', 'l1');
      expect(await store.get('g1', 'l1')).toBeUndefined();
      expect(await store.vote('g1', 'l1', 'carol', { vote: 'up' })).toEqual({ status: 'missing' });
    });

    it('members voting at once, through two connections, all land', async () => {
      await store.save(answered('v2'));
      const voters = Array.from({ length: 8 }, (_, i) => `m${i}`);
      await Promise.all(voters.map((v, i) => (i % 2 ? other : store).vote('g1', 'v2', v, { vote: i % 3 ? 'up' : 'down' }, 10 + i)));
      expect(Object.keys((await store.get('g1', 'v2'))!.votes).sort()).toEqual(voters);
    });

    it("/reset removes the text of the thread's answers and their reasons, a deleted question only its answer's; the counts stay", async () => {
      await store.save(answered('r1', { threadId: 'th-r', questionIds: ['q1'] }));
      await store.save(answered('r2', { threadId: 'th-r', questionIds: ['q2'] }));
      await store.save(answered('r3', { threadId: 'th-keep' }));
      await store.vote('g1', 'r1', 'alice', { vote: 'down', reason: 'It misread my question.' });
      expect(await store.forgetMessage('th-r', 'q2')).toBe(1);
      expect(await store.get('g1', 'r2')).toMatchObject({ question: '', answer: '', removed: 'deleted' });
      expect(await store.get('g1', 'r1')).toMatchObject({ question: 'Question r1?', answer: 'Answer r1.' });
      expect(await other.forgetThread('th-r')).toBe(1);
      const reset = (await store.get('g1', 'r1'))!;
      expect(reset).toMatchObject({ question: '', answer: '', removed: 'reset', model: 'gpt-4o-mini', steps: 2 });
      expect(reset.votes.alice).toEqual({ vote: 'down', at: expect.any(Number) });
      expect(await store.get('g1', 'r3')).toMatchObject({ question: 'Question r3?' });
    });

    it("lists a member's votes in a guild, oldest first, for their export", async () => {
      await store.save(answered('e1', { guildId: 'ge' }));
      await store.save(answered('e2', { guildId: 'ge' }));
      await store.vote('ge', 'e2', 'carol', { vote: 'down', reason: 'Too long.' }, 5);
      await store.vote('ge', 'e1', 'carol', { vote: 'up' }, 6);
      await store.vote('ge', 'e2', 'carol', { vote: 'down' }, 7);
      await store.vote('ge', 'e1', 'dave', { vote: 'down' }, 8);
      const votes = await store.votesOf('ge', 'carol');
      expect(votes.map((v) => [v.record.id, v.vote])).toEqual([['e2', { vote: 'down', reason: 'Too long.', at: 5 }], ['e1', { vote: 'up', at: 6 }]]);
      expect(await store.votesOf('ge', 'nobody')).toEqual([]);
    });

    it('the conversation TTL applies: an expired answer reads as gone, and the days past it are swept on the next answer', async () => {
      const ttl = 2 * DAY;
      const ttlStore = storeOver(backend, ttl);
      clock = START;
      await ttlStore.save(answered('t1', { guildId: 'gt', at: START }));
      await ttlStore.vote('gt', 't1', 'alice', { vote: 'up' });
      clock = START + ttl - 1_000;
      expect(await ttlStore.get('gt', 't1')).toBeDefined();
      clock = START + ttl + 1_000;
      expect(await ttlStore.get('gt', 't1')).toBeUndefined();
      expect((await ttlStore.list('gt', START - DAY, 100)).records).toEqual([]);
      expect(await ttlStore.votesOf('gt', 'alice')).toEqual([]);

      // An answer nobody reads again goes too: the next day's first answer sweeps the days past the TTL.
      clock = START;
      await ttlStore.save(answered('t2', { guildId: 'gs', at: START }));
      const raw = `${namespace}:fb:gs:t2`;
      expect(await backend.read(raw)).toHaveLength(1);
      clock = START + 4 * DAY;
      await storeOver(backend, ttl).save(answered('t3', { guildId: 'gs', at: clock }));
      expect(await backend.read(raw)).toEqual([]);
      expect(await backend.read(`${namespace}:fb-day:gs:2025-03-10`)).toEqual([]);
      expect(await ttlStore.get('gs', 't3')).toBeDefined();
      clock = START;
    });

    it('a record that cannot be read is reported and left out, not taken for an answer without votes', async () => {
      await backend.append(`${namespace}:fb:gb:bad1`, '{"v":1,"id":"bad1"}');
      await backend.append(`${namespace}:fb-day:gb:2025-03-10`, 'bad1');
      events.length = 0;
      expect(await store.get('gb', 'bad1')).toBeUndefined();
      expect(await store.vote('gb', 'bad1', 'alice', { vote: 'up' })).toEqual({ status: 'missing' });
      expect((await store.list('gb', START - DAY, 10)).records).toEqual([]);
      expect(events[0]).toMatchObject({ level: 'warn', code: 'corrupt-record', guildId: 'gb' });
      expect(await backend.read(`${namespace}:fb:gb:bad1`)).toHaveLength(1);
    });
  });
}
