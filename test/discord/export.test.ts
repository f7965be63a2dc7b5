/**
 * /export end to end: a thread of two exchanges (one with a tool call) exported as Markdown and JSON,
 * privately; without Attach Files, the most recent part in a message instead.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationExport } from '../../src/discord/text/conversation-export.js';
import { command, replyTo, startModeration, sub } from '../policy/discord-helpers.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Alice asks (one tool call, then the answer), Bob follows up; returns the thread id. */
async function twoExchanges(harness: Harness): Promise<string> {
  const { fake, model } = harness;
  model.script(
    { content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '2 + 2' } }], usage: { prompt: 100, completion: 20 } },
    { content: 'It is **4**.', usage: { prompt: 140, completion: 10 } },
    { content: 'Twice that is 8.', usage: { prompt: 200, completion: 8 } },
  );
  fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 2 + 2?' } });
  const first = await fake.waitForMessage(isFinalAnswer, 10_000);
  const mark = fake.mark();
  fake.sendMessage({ channelId: first.channelId, userId: fake.defaults.otherUserId, content: 'And twice that?' });
  await fake.waitForMessage((m) => m.content.includes('Twice that is 8.'), 10_000, { since: mark });
  return first.channelId;
}

describe('/export', () => {
  it('attaches the thread\'s conversation with its steps, speakers, times and tokens as Markdown and JSON, for the asker only', async () => {
    h = await startHarness({ messageContent: true });
    const { fake } = h;
    const threadId = await twoExchanges(h);
    const interaction = fake.sendSlashCommand({ name: 'export', channelId: threadId });
    await fake.waitFor(() => (fake.message(interaction.originalMessageId ?? '')?.attachments.length ?? 0) === 2, 10_000);
    expect(interaction.ephemeral).toBe(true);
    const reply = fake.message(interaction.originalMessageId!)!;
    expect(reply.content).toBe('The conversation of this thread: 2 exchanges, 478 tokens.');
    const [md, json] = reply.attachments;
    expect(md!.filename).toBe(`threadwise-${threadId}.md`);
    expect(json!.filename).toBe(`threadwise-${threadId}.json`);

    const data = JSON.parse(json!.data.toString('utf8')) as ConversationExport;
    expect(data.thread).toMatchObject({ id: threadId, name: 'What is 2 + 2?' });
    expect(data.usage).toEqual({ promptTokens: 440, completionTokens: 38, totalTokens: 478 });
    expect(data.exchanges.map((e) => e.usage?.totalTokens)).toEqual([270, 208]);
    const [first, second] = data.exchanges;
    expect(first!.steps.map((s) => s.kind)).toEqual(['question', 'thought', 'action', 'observation', 'answer']);
    expect(first!.steps[0]).toMatchObject({ speaker: 'Alice', text: 'What is 2 + 2?' });
    expect(first!.steps[2]).toMatchObject({ tool: 'calculate', input: { expression: '2 + 2' } });
    // The result as the model read it, with the engine's note on the steps left.
    expect(first!.steps[3]).toMatchObject({ tool: 'calculate', text: '4\n\n[step 2 of 8]' });
    expect(first!.steps[4]).toMatchObject({ kind: 'answer', text: 'It is **4**.' });
    expect(second!.steps).toEqual([
      expect.objectContaining({ kind: 'question', speaker: 'Bob', text: 'And twice that?' }),
      expect.objectContaining({ kind: 'answer', text: 'Twice that is 8.' }),
    ]);
    for (const step of [...first!.steps, ...second!.steps]) expect(step.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const markdown = md!.data.toString('utf8');
    expect(markdown).toMatch(/^# What is 2 \+ 2\?\n\nExported .+ by Alice · 2 exchanges · 478 tokens \(440 prompt, 38 completion\)/);
    expect(markdown).toMatch(/## 1 · \S+ · 270 tokens\n\n\*\*Alice\*\* \(\S+\):\n\nWhat is 2 \+ 2\?\n\n💭 I will compute it\.\n\n🔧 `calculate` \n```\n\{"expression":"2 \+ 2"\}\n```\n\n↳ result of `calculate`:\n\n```\n4\n\n\[step 2 of 8\]\n```/);
    expect(markdown).toContain('**Bob** (');
    expect(markdown).toContain('Twice that is 8.');
  });

  it('without Attach Files says so and shows the most recent exchange in the message', async () => {
    h = await startHarness({ messageContent: true });
    const { fake } = h;
    const threadId = await twoExchanges(h);
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['AttachFiles'] });
    const interaction = fake.sendSlashCommand({ name: 'export', channelId: threadId });
    await fake.waitFor(() => fake.message(interaction.originalMessageId ?? '')?.content.includes('missing the Attach Files permission') ?? false, 10_000);
    const reply = fake.message(interaction.originalMessageId!)!;
    expect(interaction.ephemeral).toBe(true);
    expect(reply.attachments).toEqual([]);
    expect(reply.content.length).toBeLessThanOrEqual(2000);
    expect(reply.content).toContain('Twice that is 8.');
  });

  it('is refused outside a thread the bot started', async () => {
    h = await startHarness();
    const interaction = h.fake.sendSlashCommand({ name: 'export' });
    await h.fake.waitForCallback(interaction.id, 5_000);
    expect(interaction.ephemeral).toBe(true);
    expect(h.fake.message(interaction.originalMessageId!)!.content).toContain('Use /export inside a thread I started');
  });
});

describe('/export: only what the member may read', () => {
  /** The JSON export the member got, once the reply carries it. */
  async function exported(harness: Harness, threadId: string, userId: string, options: Record<string, boolean> = {}): Promise<ConversationExport> {
    const { fake } = harness;
    const interaction = fake.sendSlashCommand({ name: 'export', channelId: threadId, userId, options });
    await fake.waitFor(() => (fake.message(interaction.originalMessageId ?? '')?.attachments.length ?? 0) === 2, 10_000);
    return JSON.parse(fake.message(interaction.originalMessageId!)!.attachments[1]!.data.toString('utf8')) as ConversationExport;
  }

  it('is refused to a member without Read Message History who never took part, and audited when given', async () => {
    const w = await startModeration({ production: true, messageContent: true });
    h = w.h;
    const { fake } = w;
    const threadId = await twoExchanges(h);
    const carol = fake.addUser({ username: 'carol', globalName: 'Carol' });
    fake.addMember({ userId: carol.id });
    fake.setPermissions({ channelId: fake.defaults.channelId, target: carol.id, deny: ['ReadMessageHistory'] });
    const refused = fake.sendSlashCommand({ name: 'export', channelId: threadId, userId: carol.id });
    const reply = await replyTo(fake, refused);
    expect(refused.ephemeral).toBe(true);
    expect(reply.content).toMatch(/^You cannot export this thread: it needs View Channel and Read Message History/);
    expect(reply.attachments).toEqual([]);

    await exported(h, threadId, fake.defaults.otherUserId);
    const { auditLog } = await h.storage.guildSettings.get(fake.defaults.guildId);
    expect(auditLog.at(-1)).toMatchObject({ actorId: fake.defaults.otherUserId, action: 'export' });
    expect(auditLog.at(-1)!.detail).toContain(`<#${threadId}>`);
  });

  it('a participant gets only what the channel\'s display level shows; a moderator may ask for the full record, a member may not', async () => {
    const w = await startModeration({ production: true, messageContent: true });
    h = w.h;
    const { fake, modId } = w;
    await command(fake, 'settings', sub('display', { level: 'answer' }), { userId: modId, channelId: fake.defaults.channelId });
    const threadId = await twoExchanges(h);
    const bob = await exported(h, threadId, fake.defaults.otherUserId);
    const kinds = bob.exchanges.flatMap((e) => e.steps.map((s) => s.kind));
    expect(kinds).toEqual(['question', 'answer', 'question', 'answer']);
    expect(JSON.stringify(bob)).not.toContain('I will compute it.');

    const denied = fake.sendSlashCommand({ name: 'export', channelId: threadId, userId: fake.defaults.otherUserId, options: { full: true } });
    expect((await replyTo(fake, denied)).content).toMatch(/^Only moderators/);

    const full = await exported(h, threadId, modId, { full: true });
    expect(full.exchanges[0]!.steps.map((s) => s.kind)).toEqual(['question', 'thought', 'action', 'observation', 'answer']);
  });
});
