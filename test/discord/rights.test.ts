/**
 * Rights that must hold under concurrency and slow parts, with the production defaults on: who may reset
 * a thread, Stop from the start, one run per Continue, and mentions never parsed in what the bot edits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeInteraction, FakeMessage } from '../fake-discord/index.js';
import { command, privateRefusal, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { buttonsOf, sleep, until } from './waiting.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

/** `/reset` in a thread by `userId`, confirmed when offered; the reply the member saw last. */
async function reset(world: ModerationWorld, threadId: string, userId: string): Promise<FakeMessage> {
  const { fake } = world;
  const asked: FakeInteraction = fake.sendSlashCommand({ name: 'reset', channelId: threadId, userId });
  const prompt = await replyTo(fake, asked);
  const confirm = buttonsOf(prompt).find((b) => b.label === 'Forget this thread');
  if (!confirm) return prompt;
  fake.clickButton({ messageId: prompt.id, customId: confirm.custom_id, channelId: threadId, userId });
  await until(() => /^(Done|I could not)/.test(fake.message(prompt.id)?.content ?? ''), 'the reset to finish');
  return fake.message(prompt.id)!;
}

describe('who may reset a thread', () => {
  it('the starter resets during the first run: the run stops, the note is posted, and nothing of it is saved', async () => {
    w = await startModeration({ production: true });
    const { fake, model } = w;
    model.script(
      { content: 'Working on it.', toolCalls: [{ name: 'current_time', arguments: {} }] },
      { content: 'never seen', delayMs: 5_000 },
    );
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Something I regret asking?' } });
    const thread = await fake.waitForThread(() => true, 10_000);
    await until(() => model.requests.length === 2, 'the second model call');
    const done = await reset(w, thread.id, fake.defaults.userId);
    expect(done.content).toMatch(/^Done/);
    expect(fake.messagesIn(thread.id).some((m) => m.content.includes('cleared my memory of this thread'))).toBe(true);
    await until(() => w!.h.app.services.turns.runs.size === 0, 'the run to end');
    expect((await w.h.storage.conversations.load(thread.id)).messages).toEqual([]);
    expect(fake.messagesIn(thread.id).some((m) => m.content.includes('never seen'))).toBe(false);
    expect(model.requests).toHaveLength(2);
  });

  it('after a moderator\'s reset, a member who speaks first is not the starter and may not reset; the starter still may', async () => {
    w = await startModeration({ production: true, messageContent: true });
    const { fake, model, modId } = w;
    model.script({ content: 'First answer.' }, { content: 'Answer to Bob.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Start?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    expect((await reset(w, threadId, modId)).content).toMatch(/^Done/);

    // Bob speaks first in the fresh thread...
    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'Bob here, first after the reset' });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Answer to Bob.'), 10_000, { since: mark });
    await until(() => w!.h.app.services.turns.runs.size === 0, 'the run to end');
    // ...and still may not reset it.
    const bob = await reset(w, threadId, fake.defaults.otherUserId);
    expect(bob.content).toMatch(/Only the person who started this conversation/);
    expect((await w.h.storage.conversations.load(threadId)).messages.length).toBeGreaterThan(0);
    expect((await reset(w, threadId, fake.defaults.userId)).content).toMatch(/^Done/);
  });

  it('a member who posted a follow-up in someone else\'s thread is not its starter', async () => {
    w = await startModeration({ production: true, messageContent: true });
    const { fake, model } = w;
    model.script({ content: 'First answer.' }, { content: 'Second answer.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Start?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'Bob joins' });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Second answer.'), 10_000, { since: mark });
    const bob = await reset(w, threadId, fake.defaults.otherUserId);
    expect(bob.content).toMatch(/Only the person who started this conversation/);
  });
});

describe('Stop from the start', () => {
  it('Stop pressed while a slow model reads the prompt ends the run before its first token', async () => {
    w = await startModeration({ production: true });
    const { fake, model } = w;
    model.script({ content: 'never seen', delayMs: 6_000 });
    const asked = fake.sendSlashCommand({ name: 'ask', options: { question: 'A long prompt for a slow model?' } });
    const thread = await fake.waitForThread(() => true, 10_000);
    const withStop = await fake.waitForMessage((m) => m.channelId === thread.id && buttonsOf(m).some((b) => b.label === 'Stop'), 5_000);
    expect(model.requests).toHaveLength(1);
    fake.clickButton({ messageId: withStop.id, customId: buttonsOf(withStop)[0]!.custom_id, channelId: thread.id });
    await fake.waitForMessage((m) => m.channelId === thread.id && m.content.startsWith('⏹️ Stopped'), 5_000);
    await until(() => w!.h.app.services.turns.runs.size === 0, 'the run to end');
    expect(fake.messagesIn(thread.id).some((m) => m.content.includes('never seen'))).toBe(false);
    expect(model.aborted).toBe(1);
    expect(asked.acknowledged).toBe(true);
  });
});

describe('Continue', () => {
  it('a double click starts one run', async () => {
    w = await startModeration({ production: true });
    const { fake, model, modId } = w;
    await command(fake, 'settings', sub('step-limit', { limit: 1 }), { userId: modId });
    model.script(
      { content: 'Step one.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] },
      { content: 'So far: 42, more to do.' },
      { content: 'Finished.', delayMs: 300 },
      { content: 'A second run: must not happen.' },
    );
    fake.sendSlashCommand({ name: 'ask', options: { question: 'A long task?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const button = buttonsOf(first).find((b) => b.label === 'Continue')!;
    const clicks = [0, 1, 2].map(() => fake.clickButton({ messageId: first.id, customId: button.custom_id, channelId: first.channelId }));
    await until(() => clicks.every((c) => c.acknowledged), 'every click acknowledged');
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Finished.'), 10_000);
    await sleep(500);
    await until(() => w!.h.app.services.turns.runs.size === 0, 'the run to end');
    expect(model.requests).toHaveLength(3);
    expect(model.pending).toBe(1);
  });

  it('after a step limit, Continue by a member at their hourly limit is refused privately and the button comes back', async () => {
    w = await startModeration({ production: true, env: { USER_RUNS_PER_HOUR: '1' } });
    const { fake, model, modId } = w;
    await command(fake, 'settings', sub('step-limit', { limit: 1 }), { userId: modId });
    model.script({ content: 'Step one.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { content: 'So far: 42.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'A long task?' } });
    const first = await fake.waitForMessage(isFinalAnswer, 10_000);
    const button = buttonsOf(first).find((b) => b.label === 'Continue')!;
    const click = fake.clickButton({ messageId: first.id, customId: button.custom_id, channelId: first.channelId });
    const refusal = await privateRefusal(fake, click);
    expect(refusal.content).toMatch(/questions for this hour/);
    await until(() => buttonsOf(fake.message(first.id)!).some((b) => b.label === 'Continue'), 'the button to come back');
    expect(model.requests).toHaveLength(2);
  });
});

describe('mentions in what the bot edits', () => {
  it('the channel reply\'s preview quotes a mention in the answer without pinging anyone', async () => {
    w = await startModeration({ production: true });
    const { fake, model } = w;
    const helpers = fake.addRole({ name: 'Helpers', mentionable: true });
    model.script({ content: `Ask <@${fake.defaults.otherUserId}> or @everyone, or <@&${helpers.id}>.` });
    const asked = fake.sendSlashCommand({ name: 'ask', options: { question: 'Who knows?' } });
    await fake.waitForMessage(isFinalAnswer, 10_000);
    const reply = fake.message(asked.originalMessageId!)!;
    await until(() => reply.content.includes('> Ask'), 'the preview');
    expect(reply.pings).toEqual({ everyone: false, users: [], roles: [] });
  });
});
