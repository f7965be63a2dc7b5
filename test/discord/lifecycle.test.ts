import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, isFinalAnswer } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('bot lifecycle and thread states', () => {
  it('on shutdown tells running threads they were interrupted', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script({ content: 'slow', delayMs: 10_000 });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Will this finish?' } });
    const thread = await fake.waitForThread(() => true, 10_000);
    await new Promise((r) => setTimeout(r, 200)); // the model call is in flight
    const harness = h;
    h = undefined;
    await harness.close({ keepFakes: true });
    const notice = fake.messagesIn(thread.id).find((m) => m.content.startsWith('⏹️ Interrupted'));
    expect(notice?.content).toContain('the bot is restarting');
    await fake.close();
    await model.close();
  });

  it('refuses /ask in a locked thread with a clear message', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script({ content: 'First.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Lock me?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);
    fake.updateThread(answer.channelId, { locked: true, archived: false });
    const again = fake.sendSlashCommand({ name: 'ask', options: { question: 'Still there?' }, channelId: answer.channelId });
    await fake.waitFor(() => fake.message(again.originalMessageId ?? '')?.content.includes('locked') ?? false, 10_000);
    expect(model.requests).toHaveLength(1);
  });

  it('continues an archived thread when a member posts in it, reopening it', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script({ content: 'First.' }, { content: 'Second.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Archive me?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    fake.updateThread(first.channelId, { archived: true });
    // Discord offers no commands in an archived thread; posting in it reopens it (threads.md).
    expect(() => fake.sendSlashCommand({ name: 'ask', options: { question: 'Back again?' }, channelId: first.channelId })).toThrow(/archived/);
    const mark = fake.mark();
    fake.sendMessage({ channelId: first.channelId, content: 'Back again?' });
    const second = await fake.waitForMessage((m) => m.content.includes('Second.'), 10_000, { since: mark });
    expect(second.channelId).toBe(first.channelId);
    expect(model.requests[1]!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });
});

describe('long threads and long runs', () => {
  it('says so in the thread when older history no longer fits, and leaves it out of the request', async () => {
    // The first exchange fits this budget on its own; with the next message it no longer does.
    h = await startHarness({ messageContent: true, env: { HISTORY_TOKEN_BUDGET: '600' } });
    const { fake, model } = h;
    const long = 'word '.repeat(700).trim();
    model.script({ content: `First answer: ${long}` }, { content: 'Second answer.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Tell me a lot' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const mark = fake.mark();
    fake.sendMessage({ channelId: first.channelId, content: 'And briefly?' });
    await fake.waitForMessage((m) => m.content.includes('Second answer.'), 10_000, { since: mark });
    const notice = fake.messagesIn(first.channelId).find((m) => m.content.includes('This thread is long'));
    expect(notice?.content).toMatch(/only using its most recent messages \(1 older exchange left out\)/);
    const sent = model.requests[1]!.body.messages.map((m) => m.content ?? '');
    expect(sent.some((c) => c.includes('First answer'))).toBe(false);
    expect(sent.at(-1)).toMatch(/And briefly\?$/);
  });

  it('posts the answer in the thread even when the run outlives the interaction token', async () => {
    h = await startHarness({ fake: { tokenLifetimeMs: 300 } });
    const { fake, model } = h;
    model.script({ content: 'Worth the wait.', delayMs: 800 });
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'Slow?' } });
    const answer = await fake.waitForMessage((m) => m.content.includes('Worth the wait.'), 10_000);
    expect(answer.channelId).not.toBe(fake.defaults.channelId); // in the thread, not through the interaction
    expect(fake.message(interaction.originalMessageId!)!.content).not.toContain('Full answer');
  });
});

describe('a rate-limited model server', () => {
  it('tells the thread it is being rate limited and keeps the question', async () => {
    // No retries: the one scripted 429 must be what the run ends on (with the shipped 2 it would be retried).
    h = await startHarness({ maxRetries: 0 });
    const { fake, model } = h;
    model.script({ status: 429, error: 'Rate limit reached for requests', headers: { 'retry-after': '1' } });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Busy?' } });
    const notice = await fake.waitForMessage((m) => m.content.startsWith('❌'), 10_000);
    expect(notice.content).toMatch(/rate limiting us \(429\): Rate limit reached/);
    const saved = await h.storage.conversations.load(notice.channelId);
    expect(saved.messages.map((m) => [m.role, m.content])).toEqual([['user', 'Busy?']]);
  });
});
