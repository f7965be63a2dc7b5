import {
  Events, GatewayIntentBits, type Message, MessageFlags, MessageReferenceType, MessageType, type TextChannel, type ThreadChannel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { nextEvent, type Rig, recordDispatches, rejection, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];
const general = (r: Rig) => r.client.channels.cache.get(r.fake.defaults.channelId) as TextChannel;
const created = (r: Rig, id: () => string | undefined) => nextEvent<[Message]>(r.client, Events.MessageCreate, (m) => m.id === id());

describe('replies and references', () => {
  it('a member\'s reply is type 19 with message_reference (type 0, message, channel, guild) and referenced_message one level deep', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const first = fake.sendMessage({ content: 'What is 2 + 2?' });
    const second = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'Four, I think', replyTo: first.id });
    let id: string | undefined;
    const seen = created(rig, () => id);
    id = fake.sendMessage({ content: 'Are you sure?', replyTo: second.id }).id;
    const [reply] = await seen;
    expect(reply.type).toBe(MessageType.Reply);
    expect(reply.reference).toEqual({ type: 0, messageId: second.id, channelId: fake.defaults.channelId, guildId: fake.defaults.guildId });
    const raw = wire.find((p) => p.t === 'MESSAGE_CREATE' && p.d.id === id)!.d;
    const referenced = raw.referenced_message as Record<string, unknown>;
    expect(referenced).toMatchObject({ id: second.id, content: 'Four, I think', type: 19, message_reference: { message_id: first.id } });
    expect(referenced).not.toHaveProperty('referenced_message');
    expect(referenced).not.toHaveProperty('member');
    expect(wire.find((p) => p.d.id === first.id)!.d.type).toBe(MessageType.Default);
    expect((await reply.fetchReference()).id).toBe(second.id);
  });

  it('referenced_message is null once the message replied to was deleted', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const target = fake.sendMessage({ content: 'soon gone' });
    const reply = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'replying', replyTo: target.id });
    fake.deleteMessage(target.id);
    const wire = recordDispatches(client);
    const updated = nextEvent(client, Events.MessageUpdate);
    fake.editUserMessage(reply.id, 'replying, edited');
    await updated;
    const raw = wire.find((p) => p.t === 'MESSAGE_UPDATE')!.d;
    expect(raw).toHaveProperty('referenced_message', null);
    expect(raw.message_reference).toMatchObject({ message_id: target.id });
    const fetched = await general(rig).messages.fetch({ message: reply.id, force: true });
    expect(fetched.reference?.messageId).toBe(target.id);
    expect((await rejection(fetched.fetchReference())).code).toBe(10008);
  });

  it('a reply that pings lists the replied-to author in mentions; with the ping off it does not', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const botMessage = await general(rig).send('I am the bot');
    let id: string | undefined;
    let seen = created(rig, () => id);
    id = fake.sendMessage({ content: 'pinging reply', replyTo: botMessage.id }).id;
    const [pinging] = await seen;
    expect(pinging.mentions.repliedUser?.id).toBe(fake.botId);
    expect([...pinging.mentions.users.keys()]).toEqual([fake.botId]);
    expect(pinging.mentions.has(client.user)).toBe(true);
    seen = created(rig, () => id);
    id = fake.sendMessage({ content: 'quiet reply', replyTo: botMessage.id, pingReply: false }).id;
    const [quiet] = await seen;
    expect(quiet.mentions.repliedUser?.id).toBe(fake.botId);
    expect(quiet.mentions.users.size).toBe(0);
    expect(quiet.mentions.has(client.user)).toBe(false);
  });

  it('deeper levels are fetched with GET /channels/{id}/messages/{id}: 50013 without Read Message History, 50001 without View Channel', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const root = fake.sendMessage({ content: 'the root' });
    expect((await general(rig).messages.fetch({ message: root.id, force: true })).content).toBe('the root');
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['ReadMessageHistory'] });
    const noHistory = await rejection(general(rig).messages.fetch({ message: root.id, force: true }));
    expect([noHistory.status, noHistory.code]).toEqual([403, 50013]);
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['ViewChannel'] });
    const noView = await rejection(rig.client.rest.get(`/channels/${fake.defaults.channelId}/messages/${root.id}`));
    expect([noView.status, noView.code]).toEqual([403, 50001]);
  });

  it('a thread started from a message opens with a THREAD_STARTER_MESSAGE (21): no content, a reference to the message, never dispatched, not counted', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const question = fake.sendMessage({ content: 'a long question', mentionBot: true });
    const wire = recordDispatches(client);
    const thread: ThreadChannel = await (await general(rig).messages.fetch(question.id)).startThread({ name: 'Answer' });
    await thread.send('working on it');
    const history = [...(await thread.messages.fetch()).values()].reverse();
    expect(history.map((m) => m.type)).toEqual([MessageType.ThreadStarterMessage, MessageType.Default]);
    const starter = history[0]!;
    expect([starter.content, starter.system, starter.reference?.messageId, starter.reference?.channelId]).toEqual(['', true, question.id, fake.defaults.channelId]);
    expect((await starter.fetchReference()).content).toContain('a long question');
    expect(wire.filter((p) => p.t === 'MESSAGE_CREATE' && p.d.type === MessageType.ThreadStarterMessage)).toEqual([]);
    expect(wire.find((p) => p.t === 'MESSAGE_UPDATE' && p.d.id === question.id)?.d).toMatchObject({ edited_timestamp: null, thread: { id: thread.id } });
    expect(fake.channel(thread.id)!.messageCount).toBe(1);
    expect(fake.messagesIn(thread.id).map((m) => m.content)).toEqual(['working on it']);
    const own = fake.sendMessage({ content: 'thread me' });
    const member = fake.addThread({ name: 'from alice', messageId: own.id, ownerId: fake.defaults.userId });
    expect(member.id).toBe(own.id);
    expect(fake.messagesIn(member.id, { includeStarter: true }).map((m) => [m.type, m.authorId])).toEqual([[21, fake.defaults.userId]]);
  });

  it('a forward is an empty message with a type-1 reference to the original and its snapshot, even from a channel the reader cannot view', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const staff = fake.addChannel({ name: 'staff', parentId: fake.defaults.categoryId });
    fake.setPermissions({ channelId: staff.id, target: 'everyone', deny: ['ViewChannel'] });
    fake.setPermissions({ channelId: staff.id, target: fake.defaults.userId, allow: ['ViewChannel'] });
    const secret = fake.sendMessage({ channelId: staff.id, content: 'the plan' });
    let id: string | undefined;
    const seen = created(rig, () => id);
    id = fake.forwardMessage({ messageId: secret.id, channelId: fake.defaults.channelId }).id;
    const [forward] = await seen;
    expect([forward.content, forward.type, forward.flags.has(MessageFlags.HasSnapshot)]).toEqual(['', MessageType.Default, true]);
    expect(forward.reference).toEqual({ type: MessageReferenceType.Forward, messageId: secret.id, channelId: staff.id, guildId: fake.defaults.guildId });
    expect(forward.messageSnapshots.get(secret.id)?.content).toBe('the plan');
    fake.editUserMessage(secret.id, 'a changed plan');
    const again = await general(rig).messages.fetch({ message: forward.id, force: true });
    expect(again.messageSnapshots.first()?.content).toBe('the plan');
    expect(() => fake.forwardMessage({ messageId: secret.id, userId: fake.defaults.otherUserId })).toThrow(/ViewChannel/);
  });
});
