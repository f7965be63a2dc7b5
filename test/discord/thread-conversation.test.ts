import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, isFinalAnswer } from './harness.js';

let h: Harness | undefined;

/** `promise`, or a failure naming what did not happen within `ms` (rather than the suite's timeout). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The bot's answer messages in a thread: from the one that starts it to the end. */
function answerParts<M extends { content: string; authorId: string }>(messages: M[]): M[] {
  const start = messages.findIndex((m) => m.content.startsWith('### Answer'));
  return start === -1 ? [] : messages.slice(start);
}

/** Ask in #general and wait for the answer; returns the thread id. */
async function askAndWait(harness: Harness, question: string): Promise<string> {
  const before = harness.fake.mark();
  harness.fake.sendSlashCommand({ name: 'ask', options: { question } });
  const answer = await harness.fake.waitForMessage(isFinalAnswer, 10_000, { since: before });
  return answer.channelId;
}

describe('conversations in a thread', () => {
  it('answers a follow-up with the remembered history and knows who is talking', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'Paris.' }, { content: 'About 2.1 million people.' });
    const threadId = await askAndWait(h, 'What is the capital of France?');

    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'How many people live there?' });
    await fake.waitForMessage((m) => m.content.includes('2.1 million'), 10_000, { since: mark });

    const sent = model.requests[1]!.body.messages.slice(1);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[0]!.content).toMatch(/^\[.+\] What is the capital of France\?$/);
    expect(sent[1]!.content).toBe('Paris.');
    expect(sent[2]!.content).toMatch(/^\[.+\] How many people live there\?$/);
    // Two different people: the model sees two different names.
    const speaker = (text: string | null | undefined) => /^\[(.+?)\]/.exec(text ?? '')?.[1];
    expect(speaker(sent[0]!.content)).not.toBe(speaker(sent[2]!.content));
  });

  it('without the Message Content intent, follows up only on messages that mention the bot', async () => {
    h = await startHarness({ messageContent: false });
    const { fake, model } = h;
    model.script({ content: 'First answer.' }, { content: 'Second answer.' });
    const threadId = await askAndWait(h, 'First question?');

    fake.sendMessage({ channelId: threadId, content: 'just chatting among ourselves' });
    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, content: 'and a real follow-up?', mentionBot: true });
    await fake.waitForMessage((m) => m.content.includes('Second answer.'), 10_000, { since: mark });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.body.messages.at(-1)!.content).toMatch(/\] and a real follow-up\?$/);
  });

  it('answers two people who post at once, in order, dropping neither', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'Opening answer.' }, { content: 'Answer to both.', delayMs: 300 }, { content: 'Answer to Bob.' });
    const threadId = await askAndWait(h, 'Start?');

    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.userId, content: 'Alice here: question A' });
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'Bob here: question B' });
    // Alice's message may start a turn of its own, or wait with Bob's for the next one: either way both
    // reach the model, in order, each with its speaker, and both are remembered.
    await within((async () => {
      while (!model.requests.at(-1)?.body.messages.some((m) => String(m.content).includes('question B'))) await new Promise((r) => setTimeout(r, 20));
    })(), 10_000, 'question B reaching the model');
    const lastRun = model.requests.at(-1)!.body.messages.map((m) => String(m.content));
    const a = lastRun.findIndex((c) => c.includes('question A'));
    const b = lastRun.findIndex((c) => c.includes('question B'));
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(a);
    await within((async () => {
      while (h!.app.services.turns.runs.size > 0 || h!.app.services.turns.queue.activeThreads > 0) await new Promise((r) => setTimeout(r, 20));
    })(), 10_000, 'the runs ending');
    const saved = await h.storage.conversations.load(threadId);
    expect(saved.messages.filter((m) => m.role === 'user').map((m) => m.author?.id)).toEqual([fake.defaults.userId, fake.defaults.userId, fake.defaults.otherUserId]);
  });

  it('stops a run when the asker presses Stop, and says so in the thread', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'Thinking hard…', toolCalls: [{ name: 'current_time', arguments: {} }] }, { content: 'never seen', delayMs: 5_000 });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Slow one?' } });
    const log = await fake.waitForMessage((m) => m.components.length > 0, 10_000);
    const customId = (log.components[0] as { components: Array<{ custom_id: string }> }).components[0]!.custom_id;
    await fake.waitForMessage((m) => m.id === log.id && m.content.includes('↳ result'), 10_000);

    const bob = fake.clickButton({ messageId: log.id, customId, userId: fake.defaults.otherUserId, channelId: log.channelId });
    await fake.waitForCallback(bob.id);
    expect(bob.ephemeral).toBe(true);

    const click = fake.clickButton({ messageId: log.id, customId, channelId: log.channelId });
    const stopped = await fake.waitForMessage((m) => m.content.startsWith('⏹️ Stopped'), 10_000);
    expect(click.ackType).toBe(6);
    expect(stopped.channelId).toBe(log.channelId);
    expect(fake.message(log.id)!.components).toEqual([]);
    expect(fake.messagesIn(log.channelId).some((m) => m.content.includes('never seen'))).toBe(false);
  });

  it('Stop during a tool call aborts the tool through its signal, and no further model call is made', async () => {
    let toolStarted!: () => void;
    const started = new Promise<void>((resolve) => (toolStarted = resolve));
    let abortSeen!: (reason: unknown) => void;
    const aborted = new Promise<unknown>((resolve) => (abortSeen = resolve));
    h = await startHarness({
      toolRuns: {
        // A tool that works until it is told to stop, as a long download would.
        current_time: (_args, ctx) => new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            abortSeen(ctx.signal.reason);
            reject(ctx.signal.reason);
          }, { once: true });
          toolStarted();
        }),
      },
    });
    const { fake, model } = h;
    model.script({ content: 'Checking the clock.', toolCalls: [{ name: 'current_time', arguments: {} }] });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it, slowly?' } });
    const log = await fake.waitForMessage((m) => m.components.length > 0, 10_000);
    await started;
    const customId = (log.components[0] as { components: Array<{ custom_id: string }> }).components[0]!.custom_id;
    fake.clickButton({ messageId: log.id, customId, channelId: log.channelId });

    expect(String(await within(aborted, 5_000, 'the tool was never told to stop'))).toMatch(/stopped: user/);
    await fake.waitForMessage((m) => m.content.startsWith('⏹️ Stopped'), 10_000);
    expect(model.requests).toHaveLength(1);
    expect(model.failures).toEqual([]);
  });

  it('never pings anyone, whatever the model writes', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script({ content: `@everyone @here <@&${fake.defaults.everyoneRoleId}> <@${fake.defaults.userId}> look!` });
    const threadId = await askAndWait(h, 'Say hi to everyone');
    const botMessages = fake.messagesIn(threadId).filter((m) => m.authorId === fake.botId);
    expect(botMessages.length).toBeGreaterThan(0);
    for (const m of [...botMessages, ...fake.messagesIn(fake.defaults.channelId).filter((x) => x.authorId === fake.botId)]) {
      expect(m.pings).toEqual({ everyone: false, users: [], roles: [] });
    }
  });

  it('posts a 9,000-character answer as messages of at most 2,000 characters, losing nothing', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const long = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n');
    model.script({ content: long });
    const threadId = await askAndWait(h, 'Write a lot');
    await fake.waitFor(() => fake.messagesIn(threadId).some((m) => m.content.includes('-# 1 step')), 10_000);
    const parts = answerParts(fake.messagesIn(threadId));
    expect(parts.length).toBeGreaterThan(4);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    const lines = parts.map((p) => p.content).join('\n').split('\n').filter((l) => /^line \d{3}$/.test(l));
    expect(lines).toHaveLength(1000);
    expect(parts.some((p) => p.attachments.length > 0)).toBe(false);
  });

  it('sends a 20,000-character answer as a file with its start inline, where files are allowed', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const long = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    model.script({ content: long });
    const threadId = await askAndWait(h, 'Write even more');
    const answer = fake.messagesIn(threadId).find(isFinalAnswer)!;
    await fake.waitFor(() => answer.attachments.length === 1, 10_000);
    expect(answer.content.length).toBeLessThanOrEqual(2000);
    expect(answer.content).toContain('the full text is in the attached file');
    expect(answer.attachments[0]!.filename).toBe('answer.md');
    expect(answer.attachments[0]!.size).toBeGreaterThan(20_000);
    expect(answerParts(fake.messagesIn(threadId))).toHaveLength(1);
  });

  it('without Attach Files, a 20,000-character answer is posted as messages and nothing is lost', async () => {
    h = await startHarness();
    const { fake, model } = h;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['AttachFiles'] });
    const long = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    model.script({ content: long });
    const threadId = await askAndWait(h, 'Write even more, no files');
    await fake.waitFor(() => fake.messagesIn(threadId).some((m) => m.content.includes('-# 1 step')), 20_000);
    const parts = answerParts(fake.messagesIn(threadId));
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(part.attachments).toEqual([]);
    }
    const lines = parts.map((p) => p.content).join('\n').split('\n').filter((l) => /^line \d{4}$/.test(l));
    expect(lines).toHaveLength(2000);
    expect(fake.messagesIn(threadId).some((m) => /could not post/i.test(m.content))).toBe(false);
  }, 30_000);

  it('says so in the thread when the model server is down, and keeps the memory intact', async () => {
    h = await startHarness({ messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'First answer.' });
    const threadId = await askAndWait(h, 'First?');
    await model.close();
    const mark = fake.mark();
    fake.sendMessage({ channelId: threadId, content: 'Second?' });
    const notice = await fake.waitForMessage((m) => m.content.startsWith('❌'), 10_000, { since: mark });
    expect(notice.content).toMatch(/The run failed.*Could not reach the model server/);
    const saved = await h.storage.conversations.load(threadId);
    expect(saved.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'First?'], ['assistant', 'First answer.'], ['user', 'Second?'],
    ]);
  });

  it('answers in the channel and names the permission when it may not create threads', async () => {
    h = await startHarness();
    const { fake, model } = h;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['CreatePublicThreads'] });
    model.script({ content: 'Here is the answer anyway.' });
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'No threads?' } });
    const answer = await fake.waitForMessage((m) => m.content.includes('Here is the answer anyway.'), 10_000);
    expect(fake.threadsIn(fake.defaults.channelId)).toHaveLength(0);
    expect(answer.channelId).toBe(fake.defaults.channelId);
    const original = fake.message(interaction.originalMessageId!)!;
    expect(original.content).toContain('missing the Create Public Threads permission');
    // The reply's final form, pointing at the answer, still names what is missing.
    await fake.waitFor(() => original.content.includes('Full answer and steps'), 5_000);
    expect(original.content).toContain('missing the Create Public Threads permission');
  });
});
