import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, type ChatInputCommandInteraction, type Client, DiscordAPIError,
  Events, GatewayIntentBits, type Interaction, type Message, MessageFlags, PermissionFlagsBits, Routes, TextChannel,
  ThreadChannel,
} from 'discord.js';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord, startClient } from './fake-discord/index.js';

type Handler = (interaction: Interaction) => Promise<void>;

/** Routes interactions to per-test handlers and keeps their failures for assertions. */
function router() {
  const handlers = new Map<string, Handler>();
  const failures: unknown[] = [];
  let onFailure: (error: unknown) => void = () => {};
  const nextFailure = () => new Promise<unknown>((resolve) => {
    onFailure = resolve;
  });
  const attach = (client: Client) => client.on(Events.InteractionCreate, (interaction) => {
    const key = interaction.isChatInputCommand() || interaction.isAutocomplete()
      ? interaction.commandName
      : interaction.isMessageComponent() ? interaction.customId : '';
    const handler = handlers.get(key);
    handler?.(interaction).catch((error: unknown) => {
      failures.push(error);
      onFailure(error);
    });
  });
  return { handlers, failures, nextFailure, attach };
}

/** A chat-input command as a bot would register it. */
function slash(name: string, options: Array<Record<string, unknown>> = []): Record<string, unknown> {
  return { name, description: `The ${name} command`, options };
}

const TEST_COMMANDS = [
  slash('ask', [{ name: 'question', description: 'What to ask', type: 3, required: true }]),
  slash('twice'), slash('follow'), slash('after'), slash('slow'),
  slash('pick', [{ name: 'topic', description: 'A topic', type: 3, autocomplete: true }]),
];

async function rejection(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(DiscordAPIError);
  return error as DiscordAPIError;
}

describe('fake Discord with the real discord.js client', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  const logs: string[] = [];
  const { handlers, failures, attach } = router();

  beforeAll(async () => {
    fake = await FakeDiscord.start({ log: (line) => logs.push(line) });
    fake.registerCommands(TEST_COMMANDS);
    client = await startClient(fake, { setup: attach });
  });

  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  const general = () => client.channels.cache.get(fake.defaults.channelId) as TextChannel;

  it('logs in, identifies with the requested intents and caches the guild, its channels and the bot member', () => {
    expect(fake.identifies[0]?.intents).toBe(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages);
    const guild = client.guilds.cache.get(fake.defaults.guildId);
    expect(guild?.name).toBe('Test Guild');
    expect(general()).toBeInstanceOf(TextChannel);
    expect(client.user.id).toBe(fake.botId);
    expect(client.application.id).toBe(fake.applicationId);
    expect(general().permissionsFor(guild!.members.me!).has(PermissionFlagsBits.CreatePublicThreads)).toBe(true);
    expect(fake.restCallCounts()['GET /gateway/bot']).toBe(1);
  });

  it('records the /ask flow: deferred, thread from the reply, message with no mentions parsed, reply edited', async () => {
    handlers.set('ask', async (interaction) => {
      const i = interaction as ChatInputCommandInteraction;
      await i.deferReply();
      const reply = await i.fetchReply();
      const thread = await reply.startThread({ name: i.options.getString('question', true) });
      await thread.send({ content: `Pinging @everyone and <@${fake.defaults.userId}>`, allowedMentions: { parse: [] } });
      await i.editReply(`Answered in ${thread.toString()}`);
    });
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'What is a fake?' } });

    const edited = await fake.waitForMessage((m) => m.id === interaction.originalMessageId && m.content.startsWith('Answered'));
    expect(interaction.ackType).toBe(5);
    expect(interaction.ackLatencyMs).toBeLessThan(3000); // Discord's rule (3 s), not a guess at this machine's speed
    const [thread] = fake.threadsIn(fake.defaults.channelId);
    expect(thread).toMatchObject({ id: edited.id, name: 'What is a fake?', parentId: fake.defaults.channelId, type: 11 });
    expect(edited.threadId).toBe(thread!.id);
    expect(edited.edits[0]).toMatchObject({ content: '', flags: 128 });
    expect(edited.flags & 128).toBe(0);
    const [step] = fake.messagesIn(thread!.id);
    expect(step?.allowedMentions).toEqual({ parse: [] });
    expect(step?.pings).toEqual({ everyone: false, users: [], roles: [] });
    expect(client.channels.cache.get(thread!.id)).toBeInstanceOf(ThreadChannel);
    expect(fake.restCallCounts()).toMatchObject({
      'POST /interactions/:interactionId/:token/callback': 1,
      'GET /webhooks/:applicationId/:token/messages/:messageId': 1,
      'POST /channels/:channelId/messages/:messageId/threads': 1,
      'POST /channels/:channelId/messages': 1,
      'PATCH /webhooks/:applicationId/:token/messages/:messageId': 1,
    });
    expect(failures).toEqual([]);
  });

  it('would ping everyone when the bot leaves allowed_mentions to the default', async () => {
    const sent = await general().send({ content: 'hello @everyone', allowedMentions: undefined });
    expect(fake.message(sent.id)?.pings.everyone).toBe(true);
  });

  it('rejects content over 2,000 characters with 400 and code 50035, and accepts exactly 2,000', async () => {
    const error = await rejection(general().send('x'.repeat(2001)));
    expect(error.status).toBe(400);
    expect(error.code).toBe(50035);
    expect(error.message).toContain('content[BASE_TYPE_MAX_LENGTH]');
    const ok = await general().send('y'.repeat(2000));
    expect(fake.message(ok.id)?.content).toHaveLength(2000);
  });

  it('rejects thread names over 100 characters, with or without a starter message', async () => {
    const starter = await general().send('start here');
    const fromMessage = await rejection(starter.startThread({ name: 'n'.repeat(101) }));
    expect([fromMessage.status, fromMessage.code]).toEqual([400, 50035]);
    const standalone = await rejection(general().threads.create({ name: 'n'.repeat(101) }));
    expect([standalone.status, standalone.code]).toEqual([400, 50035]);
    expect(fake.threadsIn(fake.defaults.channelId).some((t) => t.name.length > 100)).toBe(false);
  });

  it('answers 403 Missing Permissions once an overwrite denies the bot what it needs', async () => {
    const channelId = fake.defaults.otherChannelId;
    const random = client.channels.cache.get(channelId) as TextChannel;
    const thread = await random.threads.create({ name: 'allowed' });
    const updated = once(client, Events.ChannelUpdate);
    fake.setPermissions({ channelId, deny: ['CreatePublicThreads', 'SendMessagesInThreads'] });
    await updated;
    expect(random.permissionsFor(client.user)?.has(PermissionFlagsBits.CreatePublicThreads)).toBe(false);

    const create = await rejection(random.threads.create({ name: 'denied' }));
    expect([create.status, create.code, create.message]).toEqual([403, 50013, 'Missing Permissions']);
    const send = await rejection(thread.send('hello'));
    expect([send.status, send.code]).toEqual([403, 50013]);
    fake.setPermissions({ channelId });
    await expect(thread.send('hello again')).resolves.toBeTruthy();
  });

  it('refuses a second acknowledgement with 400 and code 40060', async () => {
    handlers.set('twice', async (interaction) => {
      const i = interaction as ChatInputCommandInteraction;
      await i.deferReply({ flags: MessageFlags.Ephemeral });
    });
    const interaction = fake.sendSlashCommand({ name: 'twice' });
    await fake.waitForCallback(interaction.id);
    const second = await rejection(client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
      body: { type: 4, data: { content: 'again' } }, auth: false,
    }));
    expect([second.status, second.code]).toEqual([400, 40060]);
    expect(interaction.callbacks.map((c) => c.status)).toEqual([204, 400]);
    expect(interaction.ephemeral).toBe(true);
  });

  it('replaces the thinking message with the first follow-up after a deferral', async () => {
    handlers.set('follow', async (interaction) => {
      const i = interaction as ChatInputCommandInteraction;
      await i.deferReply();
      await i.followUp('first');
      await i.followUp('second');
    });
    const interaction = fake.sendSlashCommand({ name: 'follow' });
    await fake.waitForMessage((m) => m.content === 'second');
    expect(fake.message(interaction.originalMessageId!)?.content).toBe('first');
    expect(interaction.followupIds).toHaveLength(1);
  });

  it('dispatches button clicks and autocomplete, and records update and choices', async () => {
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('stop').setLabel('Stop').setStyle(ButtonStyle.Danger),
    );
    const running = await general().send({ content: 'running…', components: [row] });
    handlers.set('stop', async (interaction) => {
      if (interaction.isButton()) await interaction.update({ content: 'stopped', components: [] });
    });
    const click = fake.clickButton({ messageId: running.id, customId: 'stop' });
    const stopped = await fake.waitForMessage((m) => m.id === running.id && m.content === 'stopped');
    expect(stopped.components).toEqual([]);
    expect(click.ackType).toBe(7);

    handlers.set('pick', async (interaction) => {
      if (interaction.isAutocomplete()) await interaction.respond([{ name: `you typed ${interaction.options.getFocused()}`, value: 'v' }]);
    });
    const auto = fake.sendAutocomplete({ name: 'pick', options: { topic: 'ca' }, focused: 'topic' });
    await fake.waitForCallback(auto.id);
    expect(auto.autocompleteChoices).toEqual([{ name: 'you typed ca', value: 'v' }]);
  });

  it('hides message content without the Message Content intent unless the bot is mentioned', async () => {
    const seen: Message[] = [];
    let onMessage: (m: Message) => void = () => {};
    const both = new Promise<void>((resolve) => {
      onMessage = (m) => {
        if (!m.author.bot) seen.push(m);
        if (seen.length === 2) resolve();
      };
    });
    client.on(Events.MessageCreate, onMessage);
    fake.sendMessage({ content: 'a plain message' });
    const mention = fake.sendMessage({ content: 'a question for you', mentionBot: true });
    await both;
    client.off(Events.MessageCreate, onMessage);
    expect(seen[0]?.content).toBe('');
    expect(seen[1]?.content).toBe(`<@${fake.botId}> a question for you`);
    expect(seen[1]?.mentions.users.has(fake.botId)).toBe(true);
    expect(fake.message(mention.id)?.pings.users).toEqual([fake.botId]);
  });

  it('records uploaded files by name and size, and registers commands in bulk', async () => {
    const sent = await general().send({ files: [{ attachment: Buffer.from('a'.repeat(9000)), name: 'answer.txt' }] });
    expect(fake.message(sent.id)?.attachments.map((a) => [a.filename, a.size])).toEqual([['answer.txt', 9000]]);

    await client.application.commands.set([{ name: 'ask', description: 'Ask a question' }], fake.defaults.guildId);
    expect(fake.commands(fake.defaults.guildId).map((c) => c.name)).toEqual(['ask']);
    await client.application.commands.set([], fake.defaults.guildId);
  });

  it('notes bursts beyond five messages in five seconds in one channel', async () => {
    const before = fake.rateLimitHits.length;
    const channel = client.channels.cache.get(fake.defaults.otherChannelId) as TextChannel;
    for (let n = 0; n < 6; n += 1) await channel.send(`burst ${n}`);
    expect(fake.rateLimitHits.length - before).toBeGreaterThanOrEqual(1);
  });

  it('answers unknown routes with 404 and logs them', async () => {
    const error = await rejection(client.rest.get('/not-a-route/123' as `/${string}`));
    expect(error.status).toBe(404);
    expect(logs.some((l) => l.includes('unknown route: GET /api/v10/not-a-route/123'))).toBe(true);
    expect(fake.unknownRoutes).toHaveLength(1);
  });
});

describe('fake Discord gateway lifecycle, deadlines and intents', () => {
  it('acknowledges heartbeats and lets a dropped client resume with the missed events replayed', async () => {
    const fake = await FakeDiscord.start({ heartbeatIntervalMs: 50 });
    fake.registerCommands(TEST_COMMANDS);
    const { handlers, attach } = router();
    const client = await startClient(fake, { setup: attach });
    try {
      await new Promise<void>((resolve) => {
        const onDebug = (line: string) => {
          if (!line.includes('Heartbeat acknowledged')) return;
          client.off(Events.Debug, onDebug);
          resolve();
        };
        client.on(Events.Debug, onDebug);
      });
      handlers.set('after', async (interaction) => {
        await (interaction as ChatInputCommandInteraction).reply('still here');
      });
      fake.dropConnections();
      const interaction = fake.sendSlashCommand({ name: 'after' });
      await fake.waitFor((e) => e.kind === 'gateway' && e.action === 'resume');
      await fake.waitForMessage((m) => m.content === 'still here');
      expect(interaction.ackType).toBe(4);
      expect(fake.identifies).toHaveLength(1);
    } finally {
      await client.destroy();
      await fake.close();
    }
  });


  it('expires an interaction not acknowledged before the deadline: a later callback gets 404 code 10062', async () => {
    const fake = await FakeDiscord.start({ ackDeadlineMs: 150 });
    fake.registerCommands(TEST_COMMANDS);
    const { handlers, nextFailure, attach } = router();
    const client = await startClient(fake, { setup: attach });
    try {
      handlers.set('slow', async (interaction) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        await (interaction as ChatInputCommandInteraction).deferReply();
      });
      const failure = nextFailure();
      const interaction = fake.sendSlashCommand({ name: 'slow' });
      const callback = await fake.waitForCallback(interaction.id);
      expect([callback.status, callback.errorCode]).toEqual([404, 10062]);
      expect(callback.latencyMs).toBeGreaterThanOrEqual(150);
      expect(interaction.expired).toBe(true);
      expect(((await failure) as DiscordAPIError).code).toBe(10062);
    } finally {
      await client.destroy();
      await fake.close();
    }
  });

  it('delivers content to a client that declared the Message Content intent', async () => {
    const fake = await FakeDiscord.start();
    const client = await startClient(fake, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    });
    try {
      const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
      fake.sendMessage({ content: 'visible to you' });
      expect((await received).content).toBe('visible to you');
    } finally {
      await client.destroy();
      await fake.close();
    }
  });

  it('generates the same valid snowflakes on every run', () => {
    const a = new FakeDiscord();
    const b = new FakeDiscord();
    expect(a.botId).toBe(b.botId);
    expect(a.defaults).toEqual(b.defaults);
    expect(a.botId).toMatch(/^\d{17,20}$/);
  });
});
