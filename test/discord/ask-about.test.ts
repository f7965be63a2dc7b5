/**
 * Apps → "Ask about this message", end to end: the command opens a modal, the question typed there
 * starts a run in a thread opened on that message, with the message's text and files as context.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const COMMAND = 'Ask about this message';

/** Bob posts a message in #general; Alice opens the command on it. */
function openOnBobsMessage(harness: Harness, content: string, files?: Array<{ filename: string; data: string; contentType?: string }>) {
  const { fake } = harness;
  const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content, files });
  const opened = fake.sendMessageCommand({ name: COMMAND, messageId: message.id });
  return { message, opened };
}

describe('Ask about this message', () => {
  it('asks in a modal, opens a thread on the message and answers with its text and files as context', async () => {
    // Without the Message Content intent: the command itself still sees the message's text.
    h = await startHarness({ messageContent: false });
    const { fake, model } = h;
    model.script({ content: 'Yes, the total is right.' });
    const { message, opened } = openOnBobsMessage(h, 'The invoice total is 1,240 euros.', [{ filename: 'invoice.csv', data: 'item,amount\nchairs,1000\ndesk,240\n', contentType: 'text/csv' }]);
    await fake.waitFor(() => opened.ackType === 9, 5_000);
    expect(opened.ackLatencyMs!).toBeLessThan(3_000);

    const submitted = fake.submitModal({ interactionId: opened.id, values: { question: 'Is this total right?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);
    // The thread is on Bob's message; the acknowledgement was private.
    expect(answer.channelId).toBe(message.id);
    expect(fake.threadsIn(fake.defaults.channelId).map((t) => t.id)).toEqual([message.id]);
    expect(submitted.ephemeral).toBe(true);
    const headline = fake.messagesIn(message.id)[0]!;
    expect(headline.content).toMatch(/^\*\*.+\*\* asked about this message: Is this total right\?$/);

    const sent = model.requests[0]!.body.messages.at(-1)!.content as string;
    expect(sent).toMatch(/^\[.+\] Is this total right\?\n\n\[The message this question is about, written by .+:\]\nThe invoice total is 1,240 euros\.\n\[end of the message\]/);
    expect(sent).toContain('[attached file: invoice.csv]\nitem,amount\nchairs,1000\ndesk,240\n\n[end of invoice.csv]');
    // The thread remembers it: the context is part of the conversation.
    const saved = await h.storage.conversations.load(message.id);
    expect(JSON.stringify(saved.messages[0]!.content)).toContain('The invoice total is 1,240 euros.');
  });

  it('goes through the same checks as /ask: a blank question is refused privately, with no thread and no model call', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const { opened } = openOnBobsMessage(h, 'Something to ask about.');
    await fake.waitFor(() => opened.ackType === 9, 5_000);
    const submitted = fake.submitModal({ interactionId: opened.id, values: { question: '\u200b\u200b\u2060' } });
    await fake.waitForCallback(submitted.id, 5_000);
    expect(submitted.ephemeral).toBe(true);
    expect(fake.message(submitted.originalMessageId!)?.content).toMatch(/nothing I can read/);
    expect(fake.threadsIn(fake.defaults.channelId)).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('without Create Public Threads it says which permission is missing, and asks the model nothing', async () => {
    h = await startHarness();
    const { fake, model } = h;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['CreatePublicThreads'] });
    const { opened } = openOnBobsMessage(h, 'Something to ask about.');
    await fake.waitFor(() => opened.ackType === 9, 5_000);
    const submitted = fake.submitModal({ interactionId: opened.id, values: { question: 'What about it?' } });
    await fake.waitForCallback(submitted.id, 5_000);
    expect(fake.message(submitted.originalMessageId!)?.content).toBe(
      'I cannot open a thread on that message: I am missing the Create Public Threads permission here. A moderator can grant it in the channel\'s permissions.',
    );
    expect(model.requests).toHaveLength(0);
  });
});
