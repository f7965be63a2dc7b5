import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, isFinalAnswer } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('/ask end to end', () => {
  it('names the thread with mentions written as plain words: names from the guild, a neutral word for the unknown', async () => {
    h = await startHarness();
    const { fake, model } = h;
    const mods = fake.addRole({ name: 'Moderators' });
    model.script({ content: 'It is up.' });
    const { userId, otherChannelId } = fake.defaults;
    fake.sendSlashCommand({ name: 'ask', options: { question: `@everyone <@&${mods.id}> is <#${otherChannelId}> down? cc <@${userId}> <@!999999999999999999> @here` } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);
    expect(fake.channel(answer.channelId)!.name).toBe('everyone @Moderators is #random down? cc @Alice @user here');
  });

  it('defers, opens a thread named after the question, shows each step, posts the answer and edits the original reply', async () => {
    h = await startHarness();
    const { fake, model } = h;
    model.script(
      { content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }] },
      { content: '17 × 3 is **51**.' },
    );
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 17 times 3?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);

    expect(interaction.ackType).toBe(5);
    expect(interaction.ackLatencyMs).toBeLessThan(3000);
    const thread = fake.channel(answer.channelId)!;
    expect(thread.name).toBe('What is 17 times 3?');
    expect(thread.parentId).toBe(fake.defaults.channelId);

    const inThread = fake.messagesIn(thread.id).filter((m) => m.authorId === fake.botId);
    const log = inThread[0]!;
    expect(log.content).toContain('💭 I will compute it.');
    expect(log.content).toContain('🔧 `calculate(17 * 3)`');
    expect(log.content).toMatch(/↳ result \((\d+ ms|\d+\.\d s)\)\n```\n51\n```/);
    expect(log.components).toEqual([]); // the Stop button is gone once the run ended
    expect(answer.content).toMatch(/^### Answer\n17 × 3 is \*\*51\*\*\.\n\n-# 2 steps · 30 tokens · /);
    expect(inThread.at(-1)!.id).toBe(answer.id);

    const original = fake.message(interaction.originalMessageId!)!;
    await fake.waitFor(() => original.content.includes('Full answer and steps'), 5000);
    expect(original.content).toContain('asked: What is 17 times 3?');
    expect(original.content).toContain('> 17 × 3 is **51**.');
    expect(original.content).toContain(`/channels/${fake.defaults.guildId}/${thread.id}/${answer.id}`);

    // What the model was offered: the default tools, never read_url.
    expect(model.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['calculate', 'wikipedia', 'current_time', 'plot', 'remember', 'forget']);
    // The conversation was saved under the thread.
    const saved = await h.storage.conversations.load(thread.id);
    expect(saved.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(saved.messages[0]!.author).toEqual({ id: fake.defaults.userId, name: expect.any(String) });
  });
});
