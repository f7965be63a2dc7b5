import {
  ChannelType, type Collection, Events, GatewayIntentBits, type Message, MessageType, Partials, type TextChannel, type VoiceChannel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { nextEvent, type Rig, recordDispatches, rejection, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];

async function received(r: Rig, post: () => { id: string }): Promise<Message> {
  let id: string | undefined;
  const seen = nextEvent<[Message]>(r.client, Events.MessageCreate, (m) => m.id === id);
  id = post().id;
  return (await seen)[0];
}

describe('edits and deletes', () => {
  it('a member\'s edit arrives as MESSAGE_UPDATE with the new content and edited_timestamp', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const original = await received(rig, () => fake.sendMessage({ content: 'teh question' }));
    expect(original.editedTimestamp).toBeNull();
    const updated = nextEvent<[Message, Message]>(client, Events.MessageUpdate);
    fake.editUserMessage(original.id, `the question, <@${fake.botId}>`);
    const [, after] = await updated;
    expect(after.content).toBe(`the question, <@${fake.botId}>`);
    expect(after.editedTimestamp).toBeGreaterThanOrEqual(original.createdTimestamp);
    expect(after.mentions.users.has(fake.botId)).toBe(true);
    expect(() => fake.editUserMessage((fake.botMessages()[0] ?? { id: 'none' }).id, 'x')).toThrow();
  });

  it('MESSAGE_DELETE and MESSAGE_DELETE_BULK carry only ids', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const [a, b, c] = ['one', 'two', 'three'].map((content) => fake.sendMessage({ content }));
    const deleted = nextEvent<[Message]>(client, Events.MessageDelete);
    fake.deleteMessage(a!.id);
    expect((await deleted)[0].id).toBe(a!.id);
    const bulk = nextEvent<[Collection<string, Message>]>(client, Events.MessageBulkDelete);
    fake.deleteMessages([b!.id, c!.id]);
    expect([...(await bulk)[0].keys()].sort()).toEqual([b!.id, c!.id].sort());
    const where = { channel_id: fake.defaults.channelId, guild_id: fake.defaults.guildId };
    expect(wire.find((p) => p.t === 'MESSAGE_DELETE')!.d).toEqual({ id: a!.id, ...where });
    expect(wire.find((p) => p.t === 'MESSAGE_DELETE_BULK')!.d).toEqual({ ids: [b!.id, c!.id], ...where });
  });
});

describe('bots, webhooks and system messages', () => {
  it('another bot\'s message has author.bot set and a member', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const other = fake.addBotUser({ username: 'helper-bot' });
    const m = await received(rig, () => fake.sendMessage({ userId: other.id, content: `<@${fake.botId}> ping`, allowedMentions: { parse: [] } }));
    expect([m.author.id, m.author.bot, m.webhookId, m.member?.id]).toEqual([other.id, true, null, other.id]);
    expect(m.mentions.users.size).toBe(0);
  });

  it('a webhook\'s message has webhook_id, the webhook as author, no member, parses only user mentions, and a reply to it pings no one', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const hook = fake.addWebhook({ name: 'CI' });
    const m = await received(rig, () => fake.sendWebhookMessage({ webhookId: hook.id, username: 'Build bot', content: `@everyone build failed <@${fake.defaults.userId}>` }));
    expect([m.webhookId, m.author.id, m.author.username, m.author.bot, m.member]).toEqual([hook.id, hook.id, 'Build bot', true, null]);
    expect([m.mentions.everyone, [...m.mentions.users.keys()]]).toEqual([false, [fake.defaults.userId]]);
    expect(wire.find((p) => p.d.id === m.id)!.d).not.toHaveProperty('member');
    const reply = await received(rig, () => fake.sendMessage({ content: 'on it', replyTo: m.id }));
    expect(reply.mentions.users.size).toBe(0);
  });

  it('system messages: a member joined (7) and a thread was created (18, its name as content, a reference to the thread)', async () => {
    rig = await startRig({ intents });
    const { fake } = rig;
    const join = await received(rig, () => fake.sendSystemMessage({ type: 7, userId: fake.defaults.otherUserId }));
    expect([join.type, join.system, join.author.id, join.content]).toEqual([MessageType.UserJoin, true, fake.defaults.otherUserId, '']);
    const thread = fake.addThread({ name: 'Side topic', ownerId: fake.defaults.userId });
    const notice = await received(rig, () => fake.sendSystemMessage({ type: 18, threadId: thread.id }));
    expect([notice.type, notice.system, notice.content, notice.author.id]).toEqual([MessageType.ThreadCreated, true, 'Side topic', fake.defaults.userId]);
    expect([notice.reference?.channelId, notice.reference?.messageId]).toEqual([thread.id, undefined]);
  });
});

describe('DMs and voice channels', () => {
  it('a DM from a member reaches the bot without guild_id, on shard 0, only with DIRECT_MESSAGES, content readable without the intent', async () => {
    rig = await startRig({
      shards: 2, intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages], client: { partials: [Partials.Channel], shards: 'auto' },
    });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const m = await received(rig, () => fake.sendMessage({ dm: true, content: 'hello in private' }));
    expect([m.guildId, m.channel.type, m.content, m.author.id]).toEqual([null, ChannelType.DM, 'hello in private', fake.defaults.userId]);
    const dispatched = wire.filter((p) => p.d.id === m.id);
    expect(dispatched.map((p) => p.shard)).toEqual([0]);
    expect(dispatched[0]!.d).toMatchObject({ channel_type: ChannelType.DM });
    expect(dispatched[0]!.d).not.toHaveProperty('guild_id');
    expect(client.ws.shards.size).toBe(2);
    await rig.close();
    rig = await startRig({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent] });
    const guildOnly = recordDispatches(rig.client);
    const dm = rig.fake.sendMessage({ dm: true, content: 'unheard' });
    await received(rig, () => rig!.fake.sendMessage({ content: 'heard' }));
    expect(guildOnly.some((p) => p.d.id === dm.id)).toBe(false);
    const stranger = rig.fake.addUser({ username: 'stranger' });
    expect(() => rig!.fake.sendMessage({ dm: true, userId: stranger.id, content: 'hi' })).toThrow(/shares no server/);
  });

  it('a voice channel\'s text chat takes messages: a mention there reaches the bot, which answers in place; no threads there', async () => {
    rig = await startRig({ intents });
    const { fake, client } = rig;
    const created = nextEvent(client, Events.ChannelCreate);
    const record = fake.addChannel({ name: 'Lounge', type: ChannelType.GuildVoice, parentId: fake.defaults.categoryId });
    await created;
    const voice = client.channels.cache.get(record.id) as VoiceChannel;
    expect([voice.type, voice.isTextBased()]).toEqual([ChannelType.GuildVoice, true]);
    const m = await received(rig, () => fake.sendMessage({ channelId: record.id, content: 'help?', mentionBot: true }));
    expect([m.channelId, m.channel.type]).toEqual([record.id, ChannelType.GuildVoice]);
    await m.reply('here');
    expect(fake.botMessages(record.id).map((x) => x.content)).toEqual(['here']);
    const thread = await rejection((client.channels.cache.get(fake.defaults.channelId) as TextChannel).client.rest.post(
      `/channels/${record.id}/messages/${m.id}/threads`, { body: { name: 'x' } },
    ));
    expect(thread.code).toBe(50024);
  });
});
