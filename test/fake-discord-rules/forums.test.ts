import {
  ChannelType, Events, type ForumChannel, GatewayIntentBits, type MediaChannel, type Message, Routes, type ThreadChannel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChannel } from '../fake-discord/index.js';
import { api, nextEvent, type Rig, recordDispatches, rejection, slash, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];

/** A forum with two tags, one only moderators may set, announced to the running client. */
async function forumOf(r: Rig, extra: { requireTag?: boolean } = {}): Promise<{ record: FakeChannel; forum: ForumChannel }> {
  const created = nextEvent(r.client, Events.ChannelCreate);
  const record = r.fake.addChannel({
    name: 'help', type: ChannelType.GuildForum, topic: 'Ask here', defaultAutoArchiveDuration: 1440,
    forum: { availableTags: [{ name: 'question', emoji: '❓' }, { name: 'answered', moderated: true }], requireTag: extra.requireTag },
  });
  await created;
  return { record, forum: r.client.channels.cache.get(record.id) as ForumChannel };
}

const tagId = (record: FakeChannel, name: string) => record.forum!.availableTags.find((t) => t.name === name)!.id;

describe('forum and media channels', () => {
  it('reach discord.js as GuildForum / GuildMedia with their tags, topic and default auto-archive duration', async () => {
    rig = await startRig({ intents });
    const { record, forum } = await forumOf(rig);
    expect(forum.type).toBe(ChannelType.GuildForum);
    expect(forum.availableTags.map((t) => [t.name, t.moderated, t.emoji?.name ?? null])).toEqual([['question', false, '❓'], ['answered', true, null]]);
    expect([forum.topic, forum.defaultAutoArchiveDuration]).toEqual(['Ask here', 1440]);
    expect(forum.availableTags[0]!.id).toBe(tagId(record, 'question'));
    const created = nextEvent(rig.client, Events.ChannelCreate);
    const media = rig.fake.addChannel({ name: 'gallery', type: ChannelType.GuildMedia });
    await created;
    expect((rig.client.channels.cache.get(media.id) as MediaChannel).type).toBe(ChannelType.GuildMedia);
  });

  it('a member\'s post arrives as THREAD_CREATE (newly created, type 11, parent the forum, owner the poster, tags), then the MESSAGE_CREATE of its first message, which has the thread\'s id', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const { record, forum } = await forumOf(rig);
    const wire = recordDispatches(client);
    const created = nextEvent<[ThreadChannel, boolean]>(client, Events.ThreadCreate);
    const first = nextEvent<[Message]>(client, Events.MessageCreate);
    const { thread: post } = fake.createForumPost({ forumId: record.id, authorId: fake.defaults.otherUserId, title: 'Why is the sky blue?', content: 'Asking for a friend', tags: ['question'] });
    const [thread, newlyCreated] = await created;
    const [message] = await first;
    expect(newlyCreated).toBe(true);
    expect([thread.id, thread.type, thread.parentId, thread.ownerId, thread.name]).toEqual([post.id, ChannelType.PublicThread, forum.id, fake.defaults.otherUserId, 'Why is the sky blue?']);
    expect(thread.parent?.type).toBe(ChannelType.GuildForum);
    expect(thread.appliedTags).toEqual([tagId(record, 'question')]);
    expect(thread.autoArchiveDuration).toBe(1440);
    expect([message.id, message.channelId, message.type, message.content, message.author.id]).toEqual([thread.id, thread.id, 0, 'Asking for a friend', fake.defaults.otherUserId]);
    expect(wire.map((p) => p.t).filter((t) => t.startsWith('THREAD') || t.startsWith('MESSAGE'))).toEqual(['THREAD_CREATE', 'MESSAGE_CREATE']);
    expect(wire[0]!.d).not.toHaveProperty('message');
    expect(wire[0]!.d.message_count).toBe(0);
    expect((await thread.fetchStarterMessage())?.content).toBe('Asking for a friend');
  });

  it('the bot posts with forum.threads.create: it needs Send Messages (Create Public Threads is ignored), and the reply nests the first message', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const { record, forum } = await forumOf(rig);
    fake.setPermissions({ channelId: record.id, deny: ['CreatePublicThreads'] });
    const thread = await forum.threads.create({ name: 'Release notes', message: { content: 'v2 is out' }, appliedTags: [tagId(record, 'question')] });
    expect([thread.ownerId, thread.parentId, thread.type]).toEqual([fake.botId, forum.id, ChannelType.PublicThread]);
    expect(fake.message(thread.id)).toMatchObject({ channelId: thread.id, content: 'v2 is out', type: 0 });
    expect(thread.messages.cache.get(thread.id)?.content).toBe('v2 is out');
    fake.setPermissions({ channelId: record.id, deny: ['SendMessages'] });
    const refused = await rejection(forum.threads.create({ name: 'Nope', message: { content: 'x' } }));
    expect([refused.status, refused.code]).toEqual([403, 50013]);
    fake.setPermissions({ channelId: record.id });
    const noMessage = await api(fake, 'POST', `/channels/${record.id}/threads`, { name: 'No message' });
    expect([noMessage.status, ((await noMessage.json()) as { code: number }).code]).toEqual([400, 50035]);
  });

  it('a forum has no messages of its own: the bot\'s send is 400 50008 and a member cannot type there', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const { record } = await forumOf(rig);
    const sent = await rejection(client.rest.post(Routes.channelMessages(record.id), { body: { content: 'hello forum' } }));
    expect([sent.status, sent.code]).toEqual([400, 50008]);
    expect(() => fake.sendMessage({ channelId: record.id, content: 'hi' })).toThrow(/forum/);
  });

  it('writing inside a post needs Send Messages in Threads, for the bot and for members; opening one needs Send Messages', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const { record } = await forumOf(rig);
    const created = nextEvent<[ThreadChannel]>(rig.client, Events.ThreadCreate);
    fake.createForumPost({ forumId: record.id, title: 'Q', content: 'first', tags: ['question'] });
    const [thread] = await created;
    fake.setPermissions({ channelId: record.id, target: 'everyone', deny: ['SendMessagesInThreads'] });
    fake.setPermissions({ channelId: record.id, deny: ['SendMessagesInThreads'] });
    expect((await rejection(thread.send('answer'))).code).toBe(50013);
    expect(() => fake.sendMessage({ channelId: thread.id, content: 'me too' })).toThrow(/SendMessagesInThreads/);
    expect(fake.createForumPost({ forumId: record.id, title: 'Still allowed', content: 'posts need Send Messages only' }).thread.parentId).toBe(record.id);
    fake.setPermissions({ channelId: record.id, target: 'everyone', deny: ['SendMessages'] });
    expect(() => fake.createForumPost({ forumId: record.id, title: 'Not now', content: 'x' })).toThrow(/SendMessages/);
  });

  it('tags: an unknown one is 404 10087, a required one missing is 40067, a moderated one needs Manage Threads; the owner edits applied_tags', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const { record, forum } = await forumOf(rig, { requireTag: true });
    const unknown = await rejection(forum.threads.create({ name: 'a', message: { content: 'x' }, appliedTags: ['1191168914244112999'] }));
    expect([unknown.status, unknown.code]).toEqual([404, 10087]);
    expect((await rejection(forum.threads.create({ name: 'b', message: { content: 'x' } }))).code).toBe(40067);
    expect((await rejection(forum.threads.create({ name: 'c', message: { content: 'x' }, appliedTags: [tagId(record, 'answered')] }))).code).toBe(50013);
    expect(() => fake.createForumPost({ forumId: record.id, title: 'untagged', content: 'x' })).toThrow(/40067/);
    const thread = await forum.threads.create({ name: 'd', message: { content: 'x' }, appliedTags: [tagId(record, 'question')] });
    const updated = nextEvent<[ThreadChannel, ThreadChannel]>(rig.client, Events.ThreadUpdate);
    await thread.setAppliedTags([]);
    expect((await updated)[1].appliedTags).toEqual([]);
    expect(fake.channel(thread.id)!.thread!.appliedTags).toEqual([]);
  });

  it('while a member\'s first message is still on its way, reading it is 10008 and the bot\'s send into the post is 403 40058', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const { record } = await forumOf(rig);
    const created = nextEvent<[ThreadChannel]>(client, Events.ThreadCreate);
    const { posted } = fake.createForumPost({ forumId: record.id, title: 'Slow upload', content: 'with a picture', tags: ['question'], starterDelayMs: 300 });
    const [thread] = await created;
    expect((await rejection(thread.fetchStarterMessage())).code).toBe(10008);
    const early = await rejection(thread.send('welcome!'));
    expect([early.status, early.code]).toEqual([403, 40058]);
    await posted;
    expect((await thread.fetchStarterMessage({ force: true }))?.content).toBe('with a picture');
    await thread.send('welcome!');
    expect(fake.botMessages(thread.id).map((m) => m.content)).toEqual(['welcome!']);
  });

  it('a slash command cannot be typed in a forum itself, only inside its posts', async () => {
    rig = await startRig({ intents, commands: [slash('ask')] });
    const { fake } = rig;
    const { record } = await forumOf(rig);
    expect(() => fake.sendSlashCommand({ name: 'ask', channelId: record.id })).toThrow(/forum/);
    const { thread } = fake.createForumPost({ forumId: record.id, title: 'Q', content: 'first', tags: ['question'] });
    expect(fake.sendSlashCommand({ name: 'ask', channelId: thread.id }).channelId).toBe(thread.id);
  });
});
