/**
 * Features beside each other, with the production defaults on (`.env.example`: limits, streaming):
 * what no single feature's tests cover. Continue at the hourly limit is in rights.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fake-discord/index.js';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { buttonsOf, pieces, until } from './waiting.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

describe('features together', () => {
  it('approvals with parallel calls, and Stop while a call waits: no call runs, no further model call', async () => {
    let ran = 0;
    w = await startModeration({ production: true, toolRuns: { calculate: async () => String(++ran) } });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('approval', { tool: 'calculate', mode: 'ask' }), { userId: modId });
    model.script(
      { content: 'Two at once.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }, { name: 'calculate', arguments: { expression: '2 + 2' } }] },
      { content: 'must not be asked for' },
    );
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Compute both?' } });
    const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && buttonsOf(m).length === 2, 10_000);
    const thread = request.channelId;
    const log = fake.messagesIn(thread).find((m) => buttonsOf(m).some((b) => b.label === 'Stop'))!;
    fake.clickButton({ messageId: log.id, customId: buttonsOf(log).find((b) => b.label === 'Stop')!.custom_id, channelId: thread });
    await fake.waitForMessage((m) => m.channelId === thread && m.content.startsWith('⏹️ Stopped'), 10_000);
    await until(() => w!.h.app.services.turns.runs.size === 0, 'the run to end');
    expect(model.requests).toHaveLength(1);
    expect(model.pending).toBe(1);
    expect(ran).toBe(0);
    // The waiting request no longer offers its buttons.
    expect(buttonsOf(fake.message(request.id)!)).toEqual([]);
  });

  it('streaming a long answer where Attach Files is denied: every part stays, no file, nothing lost', async () => {
    w = await startModeration({ production: true });
    const { fake, model } = w;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['AttachFiles'] });
    const answer = Array.from({ length: 1800 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    model.script({ content: answer, stream: { chunks: pieces(answer, 500), paceMs: 40 } });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'A long one, please' } });
    const thread = await fake.waitForThread(() => true, 10_000);
    await fake.waitFor(() => fake.messagesIn(thread.id).some((m) => m.content.includes('-# 1 step')), 30_000);
    const all = fake.messagesIn(thread.id, { includeDeleted: true }).filter((m) => m.authorId === fake.botId);
    expect(all.filter((m) => m.deleted)).toEqual([]);
    const parts = all.slice(all.findIndex((m) => m.content.startsWith('### Answer')));
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.every((p) => p.attachments.length === 0 && p.content.length <= 2000)).toBe(true);
    const lines = parts.map((p) => p.content).join('\n').split('\n').filter((l) => /^line \d{4}$/.test(l));
    expect(lines).toEqual(answer.split('\n'));
  }, 60_000);

  it('/reset during a busy batched team turn: the run stops, the waiting messages are given up and said so, nothing is saved', async () => {
    w = await startModeration({ production: true, messageContent: true });
    const { fake, model } = w;
    model.script({ content: 'First.' }, { content: 'never seen', delayMs: 4_000 }, { content: 'after the reset' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Team plan?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    fake.sendMessage({ channelId: threadId, content: 'note one' });
    await until(() => model.requests.length === 2, 'the busy turn');
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'note two, waiting' });
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'note three, waiting' });
    await until(() => w!.h.app.services.turns.waiting(threadId) === 2, 'two waiting messages');

    const asked = fake.sendSlashCommand({ name: 'reset', channelId: threadId });
    await until(() => buttonsOf(fake.message(asked.originalMessageId ?? '') ?? ({ components: [] } as unknown as FakeMessage)).length === 2, 'the confirmation');
    const prompt = fake.message(asked.originalMessageId!)!;
    fake.clickButton({ messageId: prompt.id, customId: buttonsOf(prompt)[0]!.custom_id, channelId: threadId });
    const note = await fake.waitForMessage((m) => m.channelId === threadId && m.content.includes('cleared my memory'), 10_000);
    expect(note.content).toContain('The 2 messages waiting for an answer were dropped with it.');
    await until(() => w!.h.app.services.turns.runs.size === 0 && w!.h.app.services.turns.queue.activeThreads === 0, 'the bot to be idle');
    expect((await w.h.storage.conversations.load(threadId)).messages).toEqual([]);
    expect(model.requests).toHaveLength(2);
    expect(fake.messagesIn(threadId).some((m) => m.content.includes('never seen'))).toBe(false);
  });

  it('Ask about this message in a channel with a persona and a disabled tool: the persona reaches the model, the tool does not', async () => {
    w = await startModeration({ production: true });
    const { fake, model, modId } = w;
    await command(fake, 'settings', sub('persona', { text: 'Answer like a ship captain.', channel: fake.defaults.channelId }), { userId: modId });
    await command(fake, 'tools', sub('disable', { tool: 'calculate', channel: fake.defaults.channelId }), { userId: modId });
    model.script({ content: 'Aye, the total is right.' });
    const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'The total is 1,240 euros.' });
    const opened = fake.sendMessageCommand({ name: 'Ask about this message', messageId: message.id });
    await fake.waitFor(() => opened.ackType === 9, 5_000);
    fake.submitModal({ interactionId: opened.id, values: { question: 'Is the total right?' } });
    await fake.waitForMessage(isFinalAnswer, 10_000);
    const body = model.requests[0]!.body;
    expect(String(body.messages[0]!.content)).toContain('<persona>\nAnswer like a ship captain.\n</persona>');
    expect((body.tools ?? []).map((t) => t.function.name)).not.toContain('calculate');
    expect(body.messages.some((m) => String(m.content).includes('The total is 1,240 euros.'))).toBe(true);
  });
});
