import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { RECORD_VERSION } from '../../src/state/records.js';
import { purgeNamespace, targets, uniqueNamespace } from './helpers/targets.js';
import { answer, fakeClock, openStores, recordingLogger, toolStep, user, type Stores } from './helpers/stores.js';

const DAY = 86_400_000;

for (const target of await targets('contract')) {
  describe.runIf(target.available)(`conversation store on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`conv-${target.kind}`);
    const clock = fakeClock();
    const log = recordingLogger();
    let stores: Stores;

    beforeAll(async () => {
      stores = await openStores(target.url, { namespace, clock, logger: log.logger, ttlMs: 30 * DAY });
    });
    afterAll(async () => {
      await purgeNamespace(stores.backend, namespace);
      await stores.backend.close();
    });

    it('loads a thread it has never seen as an empty conversation', async () => {
      const conversation = await stores.conversations.load('100');
      expect(conversation).toMatchObject({ threadId: '100', messages: [], usage: { totalTokens: 0 }, version: RECORD_VERSION });
      expect(conversation.createdAt).toBeUndefined();
    });

    it('takes back a deleted message: its text (and files) become a note, the exchange around it stays whole, other messages untouched', async () => {
      await stores.conversations.append('150', [{ ...user('my password is hunter2'), messageId: 'm1' }, answer('Noted.')]);
      await stores.conversations.append('150', [{ ...user('and the weather?'), messageId: 'm2' }, answer('Sunny.')]);
      expect(await stores.conversations.takeBack('150', 'm1')).toBe(1);
      const { messages } = await stores.conversations.load('150');
      expect(messages.map((m) => m.content)).toEqual(['[This message was deleted by its author.]', 'Noted.', 'and the weather?', 'Sunny.']);
      expect(messages[2]).toMatchObject({ messageId: 'm2' });
      expect(await stores.conversations.takeBack('150', 'unknown')).toBe(0);
      expect(await stores.conversations.takeBack('never-seen', 'm1')).toBe(0);
    });

    it('returns messages in the order they were appended, with who wrote them and when', async () => {
      await stores.conversations.append('101', [user('What is 2+2?', { id: '7', name: 'Ann' })]);
      clock.advance(1_000);
      await stores.conversations.append('101', [...toolStep('c1', 'calculate', '{"expression":"2+2"}', '4'), answer('4')]);
      clock.advance(1_000);
      await stores.conversations.append('101', [user('And times 3?', { id: '8', name: 'Bo' })]);

      const { messages, createdAt, updatedAt } = await stores.conversations.load('101');
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
      expect(messages[0]).toMatchObject({ content: 'What is 2+2?', author: { id: '7', name: 'Ann' } });
      expect(messages[1]).toMatchObject({ tool_calls: [{ id: 'c1', function: { name: 'calculate' } }] });
      expect(messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'c1', content: '4' });
      expect(messages[4]).toMatchObject({ author: { id: '8', name: 'Bo' } });
      expect(updatedAt! - createdAt!).toBe(2_000);
      expect(messages[4]!.at).toBe(updatedAt);
    });

    it('sums the usage reported with each append', async () => {
      await stores.conversations.append('102', [user('hi')], { promptTokens: 10, completionTokens: 2, totalTokens: 12 });
      await stores.conversations.append('102', [answer('hello')], { promptTokens: 20, completionTokens: 5, totalTokens: 25 });
      expect((await stores.conversations.load('102')).usage).toEqual({ promptTokens: 30, completionTokens: 7, totalTokens: 37 });
    });

    it('forgets a thread on reset and leaves other threads alone', async () => {
      await stores.conversations.append('103', [user('one')]);
      await stores.conversations.append('104', [user('two')]);
      await stores.conversations.reset('103');
      expect((await stores.conversations.load('103')).messages).toEqual([]);
      expect((await stores.conversations.load('104')).messages.map((m) => m.content)).toEqual(['two']);
      await stores.conversations.append('103', [user('again')]);
      expect((await stores.conversations.load('103')).messages.map((m) => m.content)).toEqual(['again']);
    });

    it('keeps all of 100 concurrent appends to one thread, in arrival order', async () => {
      await Promise.all(Array.from({ length: 100 }, (_, i) => stores.conversations.append('105', [user(`message ${i}`)])));
      const { messages } = await stores.conversations.load('105');
      expect(messages.map((m) => m.content)).toEqual(Array.from({ length: 100 }, (_, i) => `message ${i}`));
    });

    it('sees an append made just before a load (reads its own writes)', async () => {
      const appended = stores.conversations.append('106', [user('quick')]);
      const loaded = stores.conversations.load('106');
      await appended;
      expect((await loaded).messages).toHaveLength(1);
    });

    it('forgets a conversation idle for longer than the TTL, and says so', async () => {
      await stores.conversations.append('107', [user('old news')]);
      clock.advance(29 * DAY);
      expect((await stores.conversations.load('107')).messages).toHaveLength(1);
      clock.advance(2 * DAY);
      expect((await stores.conversations.load('107')).messages).toEqual([]);
      expect(log.events).toContainEqual(expect.objectContaining({ code: 'conversation-expired', threadId: '107' }));
      await stores.conversations.append('107', [user('fresh start')]);
      const conversation = await stores.conversations.load('107');
      expect(conversation.messages.map((m) => m.content)).toEqual(['fresh start']);
      expect(conversation.createdAt).toBe(clock.now().getTime());
    });

    it('refuses a malformed message and writes nothing', async () => {
      const bad = [user('fine'), { role: 'tool', content: 'no call id' }] as never;
      await expect(stores.conversations.append('108', bad)).rejects.toBeInstanceOf(StorageError);
      expect((await stores.conversations.load('108')).messages).toEqual([]);
    });

    it('rejects thread ids that could reach into another key', async () => {
      await expect(stores.conversations.load('1:2')).rejects.toThrow(/Invalid thread id/);
      await expect(stores.conversations.append('', [user('x')])).rejects.toThrow(/Invalid thread id/);
    });

    it('keeps threads whose ids share a prefix apart', async () => {
      await stores.conversations.append('12', [user('short')]);
      await stores.conversations.append('123', [user('long')]);
      await stores.conversations.append('1_3', [user('underscore')]);
      expect((await stores.conversations.load('12')).messages.map((m) => m.content)).toEqual(['short']);
      expect((await stores.conversations.load('1_3')).messages.map((m) => m.content)).toEqual(['underscore']);
      await stores.conversations.reset('12');
      expect((await stores.conversations.load('123')).messages).toHaveLength(1);
    });

    // Memory keeps nothing across a reopen by design; the other backends must.
    if (target.kind !== 'memory') it('remembers the thread after the store is closed and reopened', async () => {
      await stores.conversations.append('109', [user('remember me')]);
      const again = await openStores(target.url, { namespace, clock });
      try {
        expect((await again.conversations.load('109')).messages.map((m) => m.content)).toEqual(['remember me']);
      } finally {
        await again.backend.close();
      }
    });
  });
}
