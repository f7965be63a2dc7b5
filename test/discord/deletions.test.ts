/**
 * Deleting a message takes it back, with the production defaults on and one bot start for the three
 * cases: a follow-up deleted while it waits never reaches the model nor the thread's memory; one already
 * answered leaves the memory (the next request no longer holds it); a turn whose only question is
 * deleted stops before its next model call and keeps nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAKEN_BACK } from '../../src/state/index.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';
import { sleep, until } from './waiting.js';

let h: Harness;
let held: { release(): void } | undefined;
beforeAll(async () => {
  h = await startHarness({
    // The calculator waits for the test while `held` is set, so a deletion can land mid-run.
    toolRuns: {
      calculate: async (args) => {
        if (held) await new Promise<void>((resolve) => (held = { release: resolve }));
        return `= ${JSON.stringify(args)}`;
      },
    },
  });
});
afterAll(async () => h?.close());

const idle = () => until(() => h.app.services.turns.runs.size === 0 && h.app.services.turns.queue.activeThreads === 0, 'the bot to be idle', 20_000);
const sentToModel = () => h.model.requests.flatMap((r) => r.body.messages.map((m) => JSON.stringify(m.content)));

async function newThread(question: string): Promise<string> {
  h.model.script({ content: 'Started.' });
  const since = h.fake.mark();
  h.fake.sendSlashCommand({ name: 'ask', options: { question } });
  return (await h.fake.waitForMessage(isFinalAnswer, 10_000, { since })).channelId;
}

describe('deleting a message takes it back', () => {
  it('a follow-up deleted while it waits is dropped before its turn: the model never sees it, the thread never keeps it', async () => {
    const threadId = await newThread('First question?');
    h.model.script({ content: 'A slow answer.', delayMs: 1_500 }, { content: 'The next one.' });
    h.fake.sendMessage({ channelId: threadId, content: 'A question that keeps the thread busy' });
    await until(() => h.model.requests.length === 2, 'the busy turn');
    const secret = h.fake.sendMessage({ channelId: threadId, content: 'my password is hunter2' });
    const kept = h.fake.sendMessage({ channelId: threadId, content: 'and what about tomorrow?' });
    await sleep(200);
    h.fake.deleteMessage(secret.id);
    await until(() => h.model.requests.length === 3, 'the turn of the waiting messages');
    await idle();
    expect(sentToModel().some((c) => c.includes('hunter2'))).toBe(false);
    expect(sentToModel().some((c) => c.includes('what about tomorrow'))).toBe(true);
    const memory = JSON.stringify((await h.storage.conversations.load(threadId)).messages);
    expect(memory).not.toContain('hunter2');
    expect(memory).toContain('what about tomorrow');
    expect(kept.id).toBeDefined();
  });

  it('an answered message deleted leaves the thread\'s memory: the next request holds only the note that it was deleted', async () => {
    const threadId = await newThread('Another question?');
    h.model.script({ content: 'Noted.' }, { content: 'Sure.' });
    const since = h.fake.mark();
    const secret = h.fake.sendMessage({ channelId: threadId, content: 'my token is abc-123-secret' });
    await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === threadId, 10_000, { since });
    await idle();
    h.fake.deleteMessage(secret.id);
    await sleep(300);
    const stored = (await h.storage.conversations.load(threadId)).messages;
    expect(JSON.stringify(stored)).not.toContain('abc-123-secret');
    expect(stored.filter((m) => m.role === 'user').map((m) => m.content)).toContain(TAKEN_BACK);
    const before = h.model.requests.length;
    h.fake.sendMessage({ channelId: threadId, content: 'What did I tell you?' });
    await until(() => h.model.requests.length === before + 1, 'the next request');
    const next = JSON.stringify(h.model.requests.at(-1)!.body.messages);
    expect(next).not.toContain('abc-123-secret');
    expect(next).toContain(TAKEN_BACK);
    await idle();
  });

  it('a turn whose only question is deleted stops before its next model call and keeps nothing of it', async () => {
    const threadId = await newThread('A third question?');
    held = { release: () => undefined };
    h.model.script({ content: 'Computing.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { content: 'It is 42.' });
    const before = h.model.requests.length;
    const memoryBefore = (await h.storage.conversations.load(threadId)).messages.length;
    const question = h.fake.sendMessage({ channelId: threadId, content: 'what is six times seven, my PIN is 9911?' });
    await until(() => h.model.requests.length === before + 1, 'the first model call');
    await sleep(200);
    h.fake.deleteMessage(question.id);
    await sleep(200);
    const release = held!;
    held = undefined;
    release.release();
    await idle();
    expect(h.model.requests).toHaveLength(before + 1);
    const stored = (await h.storage.conversations.load(threadId)).messages;
    expect(stored).toHaveLength(memoryBefore);
    expect(JSON.stringify(stored)).not.toContain('9911');
    expect(h.fake.messagesIn(threadId).filter((m) => isFinalAnswer(m) && m.content.includes('42'))).toEqual([]);
  });
});
