import { Events, GatewayIntentBits, type Message, type TextChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { nextEvent, type Rig, recordDispatches, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const withContent = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];
const withoutContent = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages];

/** Posts as a member and resolves with what discord.js made of it. */
async function received(r: Rig, post: () => { id: string }): Promise<Message> {
  let id: string | undefined;
  const seen = nextEvent<[Message]>(r.client, Events.MessageCreate, (m) => m.id === id);
  id = post().id;
  return (await seen)[0];
}

describe('mention resolution', () => {
  it('<@id> and <@!id> both mention the bot; the mention makes the content readable without the Message Content intent', async () => {
    rig = await startRig({ intents: withoutContent });
    const { fake, client } = rig;
    const plain = await received(rig, () => fake.sendMessage({ content: 'nobody is mentioned' }));
    expect(plain.content).toBe('');
    for (const form of [`<@${fake.botId}>`, `<@!${fake.botId}>`]) {
      const m = await received(rig, () => fake.sendMessage({ content: `${form} what is 17% of 2,340?` }));
      expect(m.content).toBe(`${form} what is 17% of 2,340?`);
      expect([...m.mentions.users.keys()]).toEqual([fake.botId]);
      expect(m.mentions.has(client.user, { ignoreEveryone: true, ignoreRoles: true })).toBe(true);
    }
  });

  it('without the intent a reply that pings the bot carries its content; one with the ping off does not', async () => {
    rig = await startRig({ intents: withoutContent });
    const { fake } = rig;
    const mine = await (rig.client.channels.cache.get(fake.defaults.channelId) as TextChannel).send('an answer');
    const pinging = await received(rig, () => fake.sendMessage({ content: 'thanks!', replyTo: mine.id }));
    expect(pinging.content).toBe('thanks!');
    const quiet = await received(rig, () => fake.sendMessage({ content: 'and another thing', replyTo: mine.id, pingReply: false }));
    expect([quiet.content, quiet.reference?.messageId]).toEqual(['', mine.id]);
  });

  it('without the intent the referenced message keeps its content hidden unless the bot may read it', async () => {
    rig = await startRig({ intents: withoutContent });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const earlier = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'the earlier text' });
    await received(rig, () => fake.sendMessage({ content: 'what do you think?', replyTo: earlier.id, pingReply: false, mentionBot: true }));
    const asked = wire.find((p) => p.t === 'MESSAGE_CREATE' && p.d.content !== '' && p.d.referenced_message)!.d;
    expect((asked.referenced_message as { content: string }).content).toBe('');
    const mentioning = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'hey <@' + fake.botId + '>' });
    await received(rig, () => fake.sendMessage({ content: 'see above', replyTo: mentioning.id, mentionBot: true }));
    const second = wire.filter((p) => p.t === 'MESSAGE_CREATE' && p.d.referenced_message).at(-1)!.d;
    expect((second.referenced_message as { content: string }).content).toBe(`hey <@${fake.botId}>`);
  });

  it('a role mention is in mention_roles when the role is mentionable or the author may mention everyone; the bot\'s own role does not unlock content', async () => {
    rig = await startRig({ intents: withoutContent });
    const { fake } = rig;
    const helpers = fake.addRole({ name: 'helpers', mentionable: true });
    const staff = fake.addRole({ name: 'staff' });
    const m = await received(rig, () => fake.sendMessage({ content: `<@${fake.botId}> ask <@&${helpers.id}> or <@&${staff.id}>` }));
    expect([...m.mentions.roles.keys()]).toEqual([helpers.id]);
    const byRole = await received(rig, () => fake.sendMessage({ content: `<@&${fake.defaults.botRoleId}> hello` }));
    expect(byRole.content).toBe('');
    expect(byRole.mentions.users.size).toBe(0);
  });

  it('@everyone and @here set mention_everyone only when the author may mention everyone; neither unlocks content', async () => {
    rig = await startRig({ intents: withContent });
    const { fake } = rig;
    const member = await received(rig, () => fake.sendMessage({ content: '@everyone look' }));
    expect(member.mentions.everyone).toBe(false);
    const owner = await received(rig, () => fake.sendMessage({ userId: fake.defaults.ownerId, content: '@here look' }));
    expect(owner.mentions.everyone).toBe(true);
    const mod = fake.addRole({ name: 'mods', permissions: ['MentionEveryone'] });
    fake.addMember({ userId: fake.defaults.otherUserId, roleIds: [mod.id] });
    expect((await received(rig, () => fake.sendMessage({ userId: fake.defaults.otherUserId, content: '@everyone hi' }))).mentions.everyone).toBe(true);
    await rig.close();
    rig = await startRig({ intents: withoutContent });
    expect((await received(rig, () => rig!.fake.sendMessage({ userId: rig!.fake.defaults.ownerId, content: '@everyone hi' }))).content).toBe('');
  });

  it('channel mentions arrive in the content and discord.js resolves them (mention_channels is only for crossposts)', async () => {
    rig = await startRig({ intents: withContent });
    const { fake, client } = rig;
    const wire = recordDispatches(client);
    const m = await received(rig, () => fake.sendMessage({ content: `see <#${fake.defaults.otherChannelId}>` }));
    expect([...m.mentions.channels.keys()]).toEqual([fake.defaults.otherChannelId]);
    expect(wire.find((p) => p.d.id === m.id)!.d).not.toHaveProperty('mention_channels');
  });
});
