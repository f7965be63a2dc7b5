import { type Client, Events, GatewayIntentBits, type Interaction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord, startClient } from '../fake-discord/index.js';
import { type Rig, slash, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const { Guilds, GuildMembers, GuildPresences } = GatewayIntentBits;

describe('what the gateway sends by intent', () => {
  it('GUILD_CREATE carries only the bot member without GUILD_PRESENCES, every member with it', async () => {
    rig = await startRig({ intents: [Guilds] });
    const guild = rig.client.guilds.cache.get(rig.fake.defaults.guildId)!;
    expect([...guild.members.cache.keys()]).toEqual([rig.fake.botId]);
    expect(guild.memberCount).toBe(4);
    await rig.close();
    rig = await startRig({ intents: [Guilds, GuildPresences] });
    expect(rig.client.guilds.cache.get(rig.fake.defaults.guildId)!.members.cache.size).toBe(4);
  });

  it('Request Guild Members: the whole list only with GUILD_MEMBERS; a query is a prefix search within the limit', async () => {
    rig = await startRig({ intents: [Guilds] });
    const guild = rig.client.guilds.cache.get(rig.fake.defaults.guildId)!;
    await expect(guild.members.fetch({ time: 300 })).rejects.toThrow(/members didn't arrive in time/i);
    const found = await guild.members.fetch({ query: 'AL', limit: 5, time: 2000 });
    expect([...found.keys()]).toEqual([rig.fake.defaults.userId]);
    const one = await guild.members.fetch({ user: [rig.fake.defaults.otherUserId], time: 2000 });
    expect([...one.keys()]).toEqual([rig.fake.defaults.otherUserId]);
    await rig.close();
    rig = await startRig({ intents: [Guilds, GuildMembers] });
    const g = rig.client.guilds.cache.get(rig.fake.defaults.guildId)!;
    expect((await g.members.fetch({ time: 2000 })).size).toBe(4);
    expect((await g.members.fetch({ query: '', limit: 2, time: 2000 })).size).toBe(2);
  });
});

describe('sharding', () => {
  it('sends a guild\'s events to its shard and events without a guild (a DM interaction) to shard 0 only', async () => {
    const fake = await FakeDiscord.start({ log: () => undefined, shards: 2 });
    fake.registerCommands([slash('where')]);
    const seen: Array<[number, string]> = [];
    const clients: Client[] = [];
    try {
      for (const shard of [0, 1]) {
        clients.push(await startClient(fake, {
          shards: shard, shardCount: 2,
          setup: (c) => c.on(Events.InteractionCreate, (i: Interaction) => void seen.push([shard, i.guildId ?? 'dm'])),
        }));
      }
      const guildShard = Number((BigInt(fake.defaults.guildId) >> 22n) % 2n);
      const inGuild = fake.sendSlashCommand({ name: 'where' });
      const inDm = fake.sendSlashCommand({ name: 'where', dm: true });
      for (let waited = 0; seen.length < 2 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100)); // a duplicate delivery would show up here
      expect(seen.sort()).toEqual([[0, 'dm'], [guildShard, fake.defaults.guildId]].sort());
      expect([inGuild.guildId, inDm.guildId, inDm.context]).toEqual([fake.defaults.guildId, null, 1]);
    } finally {
      for (const c of clients) await c.destroy();
      await fake.close();
    }
  });
});
