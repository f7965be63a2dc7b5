/**
 * Never lose an answer, never spend one for nothing: the permission pre-flight before any model call,
 * and runs stopped (with nothing more posted) when a moderator locks, archives or deletes their thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ask in #general and wait for the answer; returns the thread id. */
async function firstAnswer(harness: Harness): Promise<string> {
  harness.model.script({ content: 'First answer.' });
  harness.fake.sendSlashCommand({ name: 'ask', options: { question: 'Start?' } });
  return (await harness.fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
}

/**
 * A run whose first step (a tool call) is done and whose second model call is still waiting, with a
 * third reply scripted that must never be asked for. Resolves once the step log shows the result.
 */
async function runInFlight(harness: Harness) {
  const { fake, model } = harness;
  model.script(
    { content: 'I compute first.', toolCalls: [{ name: 'calculate', arguments: { expression: '2 + 2' } }] },
    { content: 'Almost there.', toolCalls: [{ name: 'calculate', arguments: { expression: '3 + 3' } }], delayMs: 3_000 },
    { content: 'Never asked for.' },
  );
  const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'Will this be cut short?' } });
  const thread = await fake.waitForThread(() => true, 10_000);
  await fake.waitFor(() => fake.messagesIn(thread.id).some((m) => m.content.includes('↳ result')), 10_000);
  await fake.waitFor(() => model.requests.length === 2, 5_000);
  await sleep(300); // the step log has written out; the second model call is in flight
  return { interaction, threadId: thread.id, restBefore: fake.restCalls.length };
}

/** REST calls the bot made into a channel since `from` (an index into `fake.restCalls`). */
function callsInto(harness: Harness, channelId: string, from: number) {
  return harness.fake.restCalls.slice(from).filter((c) => c.path.includes(`/channels/${channelId}`));
}

describe('the permission pre-flight', () => {
  it('/ask in a thread without Send Messages in Threads makes no model call and says privately which permission is missing', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const threadId = await firstAnswer(h);
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['SendMessagesInThreads'] });
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'Still there?' }, channelId: threadId });
    await fake.waitForCallback(interaction.id, 5_000);
    expect(interaction.ephemeral).toBe(true);
    expect(fake.message(interaction.originalMessageId!)!.content).toBe(
      'I cannot answer in this thread: I am missing the Send Messages in Threads permission here. A moderator can grant it in the channel\'s permissions.',
    );
    expect(model.requests).toHaveLength(1);
  });

  it('a follow-up in a thread where the bot may no longer post makes no model call', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    const threadId = await firstAnswer(h);
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['SendMessagesInThreads'] });
    await sleep(200); // the channel update reaches the bot's cache
    const from = fake.restCalls.length;
    fake.sendMessage({ channelId: threadId, content: 'Hello again?' });
    await sleep(1_000);
    expect(model.requests).toHaveLength(1);
    expect(callsInto(h, threadId, from)).toEqual([]);
  });
});

describe('a permission taken away mid-run', () => {
  it('Send Messages in Threads revoked mid-run: the run stops at once, with no further model call, and the channel reply says why', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const { interaction, threadId, restBefore } = await runInFlight(h);
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['SendMessagesInThreads'] });
    await fake.waitFor(() => fake.message(interaction.originalMessageId!)!.content.includes('Stopped'), 10_000);
    await sleep(3_500); // past the moment the second reply would have arrived
    expect(fake.message(interaction.originalMessageId!)!.content).toContain('-# ⏹️ Stopped: Discord refused my posts in the thread');
    expect(model.requests).toHaveLength(2);
    expect(model.pending).toBe(1);
    // Nothing was sent into the thread after the permission went: no failing posts.
    const posts = callsInto(h, threadId, restBefore).filter((c) => c.method === 'POST');
    expect(posts).toEqual([]);
    expect(fake.restCalls.slice(restBefore).filter((c) => c.status === 403)).toEqual([]);
  });
});

describe('a thread closed under a run', () => {
  it('locked mid-run: the run stops, no further model call is made, nothing more is posted there, the reply says why', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const { interaction, threadId, restBefore } = await runInFlight(h);
    fake.updateThread(threadId, { locked: true });
    await fake.waitFor(() => fake.message(interaction.originalMessageId!)!.content.includes('Stopped'), 10_000);
    await sleep(3_500); // past the moment the second reply would have arrived
    expect(fake.message(interaction.originalMessageId!)!.content).toContain('-# ⏹️ Stopped: the thread was locked');
    expect(model.requests).toHaveLength(2);
    expect(model.pending).toBe(1);
    expect(callsInto(h, threadId, restBefore)).toEqual([]);
    // The exchange so far is kept: the question is in the thread's memory.
    expect((await h.storage.conversations.load(threadId)).messages[0]).toMatchObject({ role: 'user' });
  }, 20_000);

  it('deleted mid-run: the run stops with no further model call and nothing is sent to the deleted thread', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const { interaction, threadId, restBefore } = await runInFlight(h);
    fake.deleteThread(threadId);
    await fake.waitFor(() => fake.message(interaction.originalMessageId!)!.content.includes('Stopped'), 10_000);
    await sleep(3_500);
    expect(fake.message(interaction.originalMessageId!)!.content).toContain('the thread was deleted');
    expect(model.requests).toHaveLength(2);
    expect(callsInto(h, threadId, restBefore)).toEqual([]);
  }, 20_000);

  it('archived by a moderator mid-run: the run stops and the bot does not reopen the thread', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const { interaction, threadId, restBefore } = await runInFlight(h);
    fake.updateThread(threadId, { archived: true });
    await fake.waitFor(() => fake.message(interaction.originalMessageId!)!.content.includes('Stopped'), 10_000);
    await sleep(3_500);
    expect(model.requests).toHaveLength(2);
    expect(callsInto(h, threadId, restBefore)).toEqual([]);
    expect(fake.channel(threadId)?.thread?.archived).toBe(true);
  }, 20_000);
});
