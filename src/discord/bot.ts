/**
 * The bot: a discord.js client with the fewest intents needed, routing each interaction to the entry
 * of the interaction list that answers it (see interactions.ts) and thread messages to follow-ups, and
 * timing how long each interaction waits for its first response. `startBot` resolves once the client is
 * ready. The list comes from the composition root, so this layer never imports `commands/`; it only
 * routes, and knows no command name or custom id of its own.
 */
import { Client, Events, GatewayIntentBits, MessageFlags, Partials, RESTEvents, Status, type ClientOptions, type Interaction, type RepliableInteraction } from 'discord.js';
import { inviteUrl } from './invite.js';
import type { BotServices } from './services.js';
import { messageRouter } from './messages/router.js';
import { interactionRegistry, NOT_KNOWN, type InteractionEntry } from './interactions.js';
import { stopRunsInClosedThreads, stopRunsThatCannotPost } from './runs/thread-closure.js';
import { NO_MENTIONS } from './members.js';
import { describeError } from '../errors.js';

export interface BotOptions {
  token: string;
  /** REST base (DISCORD_API_BASE_URL); the gateway URL then comes from that API. */
  apiBaseUrl?: string;
  /** Every command and component the bot answers (`commands/index.ts`); checked for clashes at start. */
  interactions: readonly InteractionEntry[];
  /** Told how long each interaction took to get its first response (metrics). */
  onAcknowledged?: AcknowledgementObserver;
  /** REST and gateway options from the composition root: a REST proxy, traced requests, spaced logins. */
  client?: Pick<ClientOptions, 'rest' | 'ws'>;
  /** Whether DMs reach the bot (ALLOW_DMS): the Direct Messages intent. */
  directMessages?: boolean;
  /** How often turns waiting for an approval are checked for their time being up (none: never). */
  sweepWaitingEveryMs?: number;
  /** Given the client before it connects, so what posts outside an interaction (the log channel) has it before the first interaction arrives. */
  onClient?: (client: Client) => void;
}

export interface RunningBot {
  client: Client<true>;
  /** Whether every gateway shard of this client is connected and ready (not reconnecting). */
  gatewayReady(): boolean;
  /** Stop runs (each posts that it was interrupted), then disconnect. */
  stop(): Promise<void>;
}

/** Receives one measurement: what kind of interaction, and seconds to its first response. */
export type AcknowledgementObserver = (kind: string, seconds: number) => void;

export function createClient(messageContent: boolean, apiBaseUrl?: string, extra: Pick<ClientOptions, 'rest' | 'ws'> = {}, directMessages = false): Client {
  const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages];
  if (messageContent) intents.push(GatewayIntentBits.MessageContent);
  // Messages in DMs only where they are answered (ALLOW_DMS).
  if (directMessages) intents.push(GatewayIntentBits.DirectMessages);
  return new Client({
    intents,
    // Deletions of messages not in the cache still arrive (as ids), so a deleted question is always taken
    // back; a DM channel is never cached before its first message.
    partials: [Partials.Message, Partials.Channel],
    allowedMentions: NO_MENTIONS,
    rest: { ...(apiBaseUrl ? { api: apiBaseUrl.replace(/\/+$/, '') } : {}), ...extra.rest },
    ...(extra.ws ? { ws: extra.ws } : {}),
  });
}

export async function startBot(services: BotServices, options: BotOptions): Promise<RunningBot> {
  const { logger, messageContent } = services.runtime;
  // Before connecting: an ambiguous list stops the start with every clash named.
  const registry = interactionRegistry(options.interactions);
  const client = createClient(messageContent, options.apiBaseUrl, options.client, options.directMessages);
  options.onClient?.(client);
  if (options.onAcknowledged) measureAcknowledgements(client, options.onAcknowledged);

  client.on(Events.InteractionCreate, (interaction) => {
    void route(interaction).catch((error) => reportFailure(interaction, error));
  });
  // Every message is read once: a question (a mention, a follow-up, a forum post, a DM) or nothing.
  const onMessage = messageRouter(services);
  client.on(Events.MessageCreate, (message) => {
    // Every step the bot posts comes back as a message of its own: never a question, so never read.
    if (message.author.id === client.user?.id) return;
    void onMessage(message).catch((error) => logger.error({ err: error, messageId: message.id, channelId: message.channelId }, 'a message could not be handled'));
  });
  // A person who deletes what they sent takes it back (Discord sends only ids; the message may be uncached).
  const forget = (channelId: string, messageId: string) =>
    void services.turns.forget({ channelId, messageId }).catch((error) => logger.warn({ err: error, messageId }, 'could not take back a deleted message'));
  client.on(Events.MessageDelete, (message) => forget(message.channelId, message.id));
  client.on(Events.MessageBulkDelete, (messages, channel) => {
    for (const id of messages.keys()) forget(channel.id, id);
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  stopRunsInClosedThreads(client, services.turns.runs, logger);
  stopRunsThatCannotPost(client, services.turns.runs, logger);

  async function route(interaction: Interaction): Promise<void> {
    if (interaction.isChatInputCommand()) {
      const command = registry.slash(interaction.commandName) ?? registry.guildCommand(interaction);
      return command ? command.execute(interaction, services) : notKnown(interaction, 'command');
    }
    if (interaction.isMessageContextMenuCommand()) {
      const command = registry.messageCommand(interaction.commandName);
      return command ? command.execute(interaction, services) : notKnown(interaction, 'command');
    }
    if (interaction.isAutocomplete()) {
      const command = registry.slash(interaction.commandName) ?? registry.guildCommand(interaction);
      // No suggestions rather than Discord's "loading options failed" for a command no longer here.
      return command?.autocomplete ? command.autocomplete(interaction, services) : interaction.respond([]);
    }
    if (interaction.isButton()) {
      const entry = registry.button(interaction.customId);
      return entry ? entry.handle(interaction, services) : notKnown(interaction, 'button');
    }
    if (interaction.isAnySelectMenu()) {
      const entry = registry.select(interaction.customId);
      return entry ? entry.handle(interaction, services) : notKnown(interaction, 'select');
    }
    if (interaction.isModalSubmit()) {
      const entry = registry.modal(interaction.customId);
      return entry ? entry.handle(interaction, services) : notKnown(interaction, 'modal');
    }
  }

  /** Something no longer in the list (from an older version): said privately, not left to time out. */
  async function notKnown(interaction: RepliableInteraction, kind: keyof typeof NOT_KNOWN): Promise<void> {
    await interaction.reply({ content: NOT_KNOWN[kind], flags: MessageFlags.Ephemeral });
  }

  async function reportFailure(interaction: Interaction, error: unknown): Promise<void> {
    logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, 'interaction failed');
    if (!interaction.isRepliable()) return;
    const content = `Something went wrong: ${describeError(error)}`;
    // A deferred reply shows "thinking…" until edited: replace it rather than leave it spinning.
    const reply = interaction.deferred
      ? interaction.editReply({ content, allowedMentions: NO_MENTIONS })
      : interaction.replied
        ? interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS })
        : interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
    await reply.catch(() => undefined);
  }

  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(options.token);
  await ready;
  logger.info({ user: client.user?.tag, guilds: client.guilds.cache.size, shards: client.ws.shards.map((s) => s.id) }, 'connected to Discord');
  // Once per bot, not once per shard: by the process that runs shard 0.
  if (client.application && client.ws.shards.has(0)) {
    logger.info({ inviteUrl: inviteUrl(client.application.id) }, 'add the bot to a server with this link (it asks for the permissions the bot needs)');
  }

  // Turns waiting for a person end with a note once their time is up, by the process that holds their guild.
  let sweeping: Promise<void> | undefined;
  const sweep = options.sweepWaitingEveryMs
    ? setInterval(() => {
        sweeping ??= services.turns
          .sweepWaiting(client as Client<true>)
          .catch((error) => logger.warn({ err: error }, 'could not check the turns waiting for approval; trying again soon'))
          .finally(() => (sweeping = undefined));
      }, options.sweepWaitingEveryMs)
    : undefined;
  sweep?.unref();

  return {
    client: client as Client<true>,
    gatewayReady: () => client.ws.shards.size > 0 && client.ws.shards.every((s) => s.status === Status.Ready),
    async stop() {
      clearInterval(sweep);
      await sweeping;
      await services.turns.runs.stopAll('shutdown', 10_000);
      await client.destroy();
    },
  };
}

// Acknowledgement latency, measured from outside the commands: the time from an interaction reaching this
// process to the response to Discord's first callback for it (a deferral, reply, update or autocomplete
// answer all go to `POST /interactions/:id/:token/callback`). Discord's own creation time is not used:
// its clock and ours differ, and what the bot controls starts at receipt.

// Discord allows 3 s to acknowledge; past this an entry can no longer be answered and is dropped.
const FORGET_AFTER_MS = 5_000;
const CALLBACK = /^\/interactions\/(\d+)\/[^/]+\/callback/;

/** Start measuring on `client`; call before logging in. */
function measureAcknowledgements(client: Client, observe: AcknowledgementObserver, now: () => number = performance.now.bind(performance)): void {
  const pending = new Map<string, { at: number; kind: string }>();
  client.on(Events.InteractionCreate, (interaction) => {
    const id = interaction.id;
    pending.set(id, { at: now(), kind: kindOf(interaction) });
    setTimeout(() => pending.delete(id), FORGET_AFTER_MS).unref();
  });
  client.rest.on(RESTEvents.Response, (request, response) => {
    const id = CALLBACK.exec(request.path)?.[1];
    const entry = id === undefined ? undefined : pending.get(id);
    if (!entry || response.status >= 400) return;
    pending.delete(id!);
    observe(entry.kind, (now() - entry.at) / 1000);
  });
}

function kindOf(interaction: Interaction): string {
  if (interaction.isChatInputCommand()) return 'command';
  if (interaction.isAutocomplete()) return 'autocomplete';
  if (interaction.isButton()) return 'button';
  if (interaction.isMessageComponent()) return 'component';
  if (interaction.isModalSubmit()) return 'modal';
  return 'other';
}
