import {
  ApplicationCommandType, type ChatInputCommandInteraction, ContextMenuCommandBuilder, DiscordAPIError, PermissionFlagsBits, Routes,
  SlashCommandBuilder,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Rig, rejection, slash, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const MANAGE_GUILD = PermissionFlagsBits.ManageGuild.toString();

const COMMANDS = [
  slash('ping'),
  slash('manage', [], { default_member_permissions: MANAGE_GUILD }),
  slash('admins', [], { default_member_permissions: '0' }),
  new SlashCommandBuilder().setName('count').setDescription('Typed options')
    .addIntegerOption((o) => o.setName('n').setDescription('How many').setRequired(true).setMinValue(1).setMaxValue(10))
    .addStringOption((o) => o.setName('label').setDescription('A label').addChoices({ name: 'A', value: 'a' }, { name: '42', value: '42' }))
    .addNumberOption((o) => o.setName('ratio').setDescription('A ratio'))
    .toJSON(),
  new SlashCommandBuilder().setName('rules').setDescription('Groups')
    .addSubcommandGroup((g) => g.setName('tool').setDescription('Tool rules')
      .addSubcommand((s) => s.setName('disable').setDescription('Disable one').addStringOption((o) => o.setName('name').setDescription('Which').setRequired(true))))
    .addSubcommand((s) => s.setName('list').setDescription('List them'))
    .toJSON(),
];

async function withModerators(r: Rig) {
  const mods = r.fake.addRole({ name: 'Mods', permissions: ['ManageGuild'] });
  const admins = r.fake.addRole({ name: 'Admins', permissions: ['Administrator'] });
  const mod = r.fake.addUser({ username: 'mod' });
  const admin = r.fake.addUser({ username: 'admin' });
  r.fake.addMember({ userId: mod.id, roleIds: [mods.id] });
  r.fake.addMember({ userId: admin.id, roleIds: [admins.id] });
  return { modId: mod.id, adminId: admin.id };
}

describe('commands the Discord client lets a user send', () => {
  it('refuses a command that was never registered: no interaction reaches the bot', async () => {
    rig = await startRig({ commands: COMMANDS });
    expect(() => rig!.fake.sendSlashCommand({ name: 'nope' })).toThrow(/\/nope is not registered.*cannot send it/);
    expect(rig.fake.interactions).toEqual([]);
  });

  it('applies default_member_permissions: Manage Server needs it, "0" is admins only, the owner and Administrator bypass', async () => {
    rig = await startRig({ commands: COMMANDS });
    const { fake } = rig;
    const { modId, adminId } = await withModerators(rig);
    const alice = fake.defaults.userId;
    expect(() => fake.sendSlashCommand({ name: 'manage', userId: alice })).toThrow(/lacks the default member permissions of slash command \/manage/);
    expect(fake.sendSlashCommand({ name: 'manage', userId: modId }).commandName).toBe('manage');
    expect(() => fake.sendSlashCommand({ name: 'admins', userId: modId })).toThrow(/admins only/);
    expect(fake.sendSlashCommand({ name: 'admins', userId: adminId }).userId).toBe(adminId);
    expect(fake.sendSlashCommand({ name: 'admins', userId: fake.defaults.ownerId }).userId).toBe(fake.defaults.ownerId);
    expect(fake.sendSlashCommand({ name: 'ping', userId: alice }).userId).toBe(alice);
  });

  it('honours an admin\'s command permissions: @everyone allowed opens "0" to all, a channel overwrite disables it there', async () => {
    rig = await startRig({ commands: COMMANDS });
    const { fake } = rig;
    const { modId } = await withModerators(rig);
    const { guildId, userId, channelId, otherChannelId } = fake.defaults;
    fake.setCommandPermissions({ command: 'admins', permissions: [{ id: guildId, type: 1, permission: true }, { id: otherChannelId, type: 3, permission: false }] });
    expect(fake.sendSlashCommand({ name: 'admins', userId, channelId }).commandName).toBe('admins');
    expect(() => fake.sendSlashCommand({ name: 'admins', userId: modId, channelId: otherChannelId })).toThrow(/admin disabled/);
  });

  it('refuses members without Use Application Commands in the channel', async () => {
    rig = await startRig({ commands: COMMANDS });
    const { fake } = rig;
    fake.setPermissions({ channelId: fake.defaults.channelId, target: 'everyone', deny: ['UseApplicationCommands'] });
    expect(() => fake.sendSlashCommand({ name: 'ping' })).toThrow(/Use Application Commands/);
  });

  it('takes option types from the registered schema and refuses what the client would not send', async () => {
    rig = await startRig({ commands: COMMANDS });
    const { fake, handlers } = rig;
    const seen: unknown[] = [];
    handlers.set('count', async (i) => {
      const c = i as ChatInputCommandInteraction;
      seen.push([c.options.getInteger('n'), c.options.getString('label'), c.options.getNumber('ratio')]);
      await c.reply('ok');
    });
    const sent = fake.sendSlashCommand({ name: 'count', options: { n: 3, label: '42', ratio: 2 } });
    await fake.waitForCallback(sent.id);
    expect(sent.options).toEqual([{ name: 'n', type: 4, value: 3 }, { name: 'label', type: 3, value: '42' }, { name: 'ratio', type: 10, value: 2 }]);
    expect(seen).toEqual([[3, '42', 2]]);
    expect(() => fake.sendSlashCommand({ name: 'count', options: { label: 'a' } })).toThrow(/missing required option\(s\) n/);
    expect(() => fake.sendSlashCommand({ name: 'count', options: { n: 2.5 } })).toThrow(/INTEGER/);
    expect(() => fake.sendSlashCommand({ name: 'count', options: { n: 11 } })).toThrow(/min_value\/max_value/);
    expect(() => fake.sendSlashCommand({ name: 'count', options: { n: 1, label: 'b' } })).toThrow(/choices/);
    expect(() => fake.sendSlashCommand({ name: 'count', options: { n: 1, other: 'x' } })).toThrow(/no option "other"/);
    expect(() => fake.sendSlashCommand({ name: 'count', options: [{ name: 'n', type: 3, value: '1' }] })).toThrow(/registered as type 4/);
  });

  it('builds subcommand groups and subcommands as Discord nests them', async () => {
    rig = await startRig({ commands: COMMANDS });
    const { fake, handlers } = rig;
    const seen: unknown[] = [];
    handlers.set('rules', async (i) => {
      const c = i as ChatInputCommandInteraction;
      seen.push([c.options.getSubcommandGroup(false), c.options.getSubcommand(), c.options.getString('name')]);
      await c.reply('ok');
    });
    const grouped = fake.sendSlashCommand({ name: 'rules', group: 'tool', subcommand: 'disable', options: { name: 'calculate' } });
    expect(grouped.options).toEqual([{ name: 'tool', type: 2, options: [{ name: 'disable', type: 1, options: [{ name: 'name', type: 3, value: 'calculate' }] }] }]);
    await fake.waitForCallback(grouped.id);
    const plain = fake.sendSlashCommand({ name: 'rules', subcommand: 'list' });
    await fake.waitForCallback(plain.id);
    expect(seen).toEqual([['tool', 'disable', 'calculate'], [null, 'list', null]]);
    expect(() => fake.sendSlashCommand({ name: 'rules' })).toThrow(/exactly one of its subcommands/);
    expect(() => fake.sendSlashCommand({ name: 'rules', group: 'tool', subcommand: 'disable' })).toThrow(/missing required option\(s\) name/);
  });
});

describe('registering commands by the naming rules', () => {
  it('accepts user and message command names with spaces and capitals, and refuses upper case in chat-input and option names', async () => {
    rig = await startRig();
    const { fake, client } = rig;
    const menu = new ContextMenuCommandBuilder().setName('Explain This').setType(ApplicationCommandType.Message).toJSON();
    const user = new ContextMenuCommandBuilder().setName('Who Is').setType(ApplicationCommandType.User).toJSON();
    const put = (body: unknown[]) => client.rest.put(Routes.applicationCommands(client.application.id), { body });
    await put([menu, user, slash('fine')]);
    expect(fake.commands().map((c) => [c.name, c.type])).toEqual([['Explain This', 3], ['Who Is', 2], ['fine', 1]]);

    const upper = await rejection(put([slash('Shout')]));
    expect([upper.status, upper.code]).toEqual([400, 50035]);
    expect(upper.message).toContain('APPLICATION_COMMAND_INVALID_NAME');
    const option = await rejection(put([slash('quiet', [{ name: 'Loud', description: 'x', type: 3 }])]));
    expect(option.message).toContain('options[0].name[APPLICATION_COMMAND_INVALID_NAME]');
    const order = await rejection(put([slash('order', [
      { name: 'a', description: 'x', type: 3 }, { name: 'b', description: 'x', type: 3, required: true },
    ])]));
    expect(order.message).toContain('APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID');
    expect(fake.commands().map((c) => c.name)).toEqual(['Explain This', 'Who Is', 'fine']);
    expect(() => fake.registerCommands([slash('Bad')])).toThrow(/Discord refuses these commands/);
    expect(upper).toBeInstanceOf(DiscordAPIError);
  });
});

describe("the limits on registering commands (application-commands.mdx, Registering a Command)", () => {
  it('a guild holds 100 chat-input commands: the 101st create is 30032, an overwrite past 100 too, and a message command still fits', async () => {
    rig = await startRig();
    const { client, fake } = rig;
    const route = Routes.applicationGuildCommands(client.application.id, fake.defaults.guildId);
    for (let i = 0; i < 100; i++) await client.rest.post(route, { body: slash(`c${i}`) });
    const refused = await rejection(client.rest.post(route, { body: slash('c100') }));
    expect([refused.status, refused.code, refused.message]).toEqual([400, 30032, 'Maximum number of application commands reached (100)']);
    // An upsert of one it has is no new command; a message command counts apart.
    await client.rest.post(route, { body: { ...slash('c5'), description: 'Changed' } });
    await client.rest.post(route, { body: { name: 'Look', type: 3 } });
    const bulk = await rejection(client.rest.put(route, { body: Array.from({ length: 101 }, (_, i) => slash(`d${i}`)) }));
    expect(bulk.code).toBe(30032);
    expect(fake.commands(fake.defaults.guildId).filter((c) => c.type === 1)).toHaveLength(100);
    expect(fake.commands(fake.defaults.guildId).find((c) => c.name === 'c5')?.description).toBe('Changed');
  });

  it('one command is at most 8,000 characters, its options, choices and localisations counted: past it, APPLICATION_COMMAND_TOO_LARGE', async () => {
    rig = await startRig();
    const { client, fake } = rig;
    const route = Routes.applicationGuildCommands(client.application.id, fake.defaults.guildId);
    const option = (i: number, description: string) => ({ type: 3, name: `o${i}`, description, name_localizations: { fr: `fr${i}` } });
    // 4 + 100 + 25 × (2 + 100 + 3) = 2,729 characters: well within.
    await client.rest.post(route, { body: slash('fits', Array.from({ length: 25 }, (_, i) => option(i, 'd'.repeat(100)))) });
    const sub = (i: number) => ({ type: 1, name: `s${i}`, description: 'x'.repeat(100), options: Array.from({ length: 3 }, (_, j) => option(j, 'y'.repeat(100))) });
    // 25 subcommands × (2 + 100 + 3 × (2 + 100 + 3)) = 10,425 characters.
    const error = await rejection(client.rest.post(route, { body: slash('huge', Array.from({ length: 25 }, (_, i) => sub(i))) }));
    expect(error.code).toBe(50035);
    expect(JSON.stringify(error.rawError)).toContain('"code":"APPLICATION_COMMAND_TOO_LARGE","message":"Command exceeds maximum size (8000)"');
    expect(fake.commands(fake.defaults.guildId).map((c) => c.name)).toEqual(['fits']);
  });

  it('PATCH edits a command in place (its id kept); a command is reached only through its own scope', async () => {
    rig = await startRig();
    const { client, fake } = rig;
    const app = client.application.id;
    const other = fake.addGuild({ name: 'Other' });
    const made = (await client.rest.post(Routes.applicationGuildCommands(app, fake.defaults.guildId), { body: slash('edit-me') })) as { id: string };
    const edited = (await client.rest.patch(Routes.applicationGuildCommand(app, fake.defaults.guildId, made.id), { body: { description: 'New words' } })) as { id: string; description: string };
    expect([edited.id, edited.description]).toEqual([made.id, 'New words']);
    expect((await rejection(client.rest.delete(Routes.applicationGuildCommand(app, other.id, made.id)))).code).toBe(10063);
    expect((await rejection(client.rest.delete(Routes.applicationCommand(app, made.id)))).code).toBe(10063);
    await client.rest.delete(Routes.applicationGuildCommand(app, fake.defaults.guildId, made.id));
    expect(fake.commands(fake.defaults.guildId)).toEqual([]);
  });
});
