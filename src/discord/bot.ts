/**
 * The bot: a discord.js client with the fewest intents needed, routing interactions to the commands it
 * is given and thread messages to follow-ups. `startBot` resolves once the client is ready. The command
 * list comes from the composition root, so this layer never imports `commands/`.
 */
import { Client, Events, GatewayIntentBits, MessageFlags, Status, type ClientOptions, type Interaction } from 'discord.js';
import { measureAcknowledgements, type AcknowledgementObserver } from './acknowledgements.js';
import { inviteUrl } from './invite.js';
import { isMessageCommand, type AnyCommand, type Command, type MessageCommand } from './command.js';
import type { BotServices } from './services.js';
import { handleFollowUp } from './follow-ups.js';
import { APPROVE_PREFIX, handleApprovalButton } from './approvals.js';
import { CONTINUE_PREFIX, handleContinueButton } from './continue-button.js';
import { handleStopButton } from './stop-button.js';
import { stopRunsInClosedThreads, stopRunsThatCannotPost } from './thread-closure.js';
import { STOP_PREFIX } from './thread-turn.js';
import { NO_MENTIONS } from './turn-target.js';
import { describeError } from '../errors.js';

export interface BotOptions {
  token: string;
  /** REST base (DISCORD_API_BASE_URL); the gateway URL then comes from that API. */
  apiBaseUrl?: string;
  commands: readonly AnyCommand[];
  /** Told how long each interaction took to get its first response (metrics). */
  onAcknowledged?: AcknowledgementObserver;
  /** REST and gateway options from the composition root: a REST proxy, traced requests, spaced logins. */
  client?: Pick<ClientOptions, 'rest' | 'ws'>;
}

export interface RunningBot {
  client: Client<true>;
  /** Whether every gateway shard of this client is connected and ready (not reconnecting). */
  gatewayReady(): boolean;
  /** Stop runs (each posts that it was interrupted), then disconnect. */
  stop(): Promise<void>;
}

export function createClient(messageContent: boolean, apiBaseUrl?: string, extra: Pick<ClientOptions, 'rest' | 'ws'> = {}): Client {
  const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages];
  if (messageContent) intents.push(GatewayIntentBits.MessageContent);
  return new Client({
    intents,
    allowedMentions: NO_MENTIONS,
    rest: { ...(apiBaseUrl ? { api: apiBaseUrl.replace(/\/+$/, '') } : {}), ...extra.rest },
    ...(extra.ws ? { ws: extra.ws } : {}),
  });
}

export async function startBot(services: BotServices, options: BotOptions): Promise<RunningBot> {
  const { logger } = services;
  const client = createClient(services.messageContent, options.apiBaseUrl, options.client);
  const slash = new Map(options.commands.filter((c): c is Command => !isMessageCommand(c)).map((c) => [c.data.name, c]));
  const onMessages = new Map(options.commands.filter(isMessageCommand).map((c): [string, MessageCommand] => [c.data.name, c]));
  const buttonRoutes = options.commands.flatMap((c) => (c.buttons ? [c.buttons] : []));
  const modalRoutes = options.commands.flatMap((c) => (c.modals ? [c.modals] : []));
  const unknown = 'I do not know that command; it may be from an older version.';
  if (options.onAcknowledged) measureAcknowledgements(client, options.onAcknowledged);

  client.on(Events.InteractionCreate, (interaction) => {
    void route(interaction).catch((error) => reportFailure(interaction, error));
  });
  client.on(Events.MessageCreate, (message) => {
    void handleFollowUp(message, services.turns, services.messageContent, logger).catch((error) =>
      logger.error({ err: error, messageId: message.id, threadId: message.channelId }, 'follow-up failed'),
    );
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  stopRunsInClosedThreads(client, services.runs, logger);
  stopRunsThatCannotPost(client, services.runs, logger);

  async function route(interaction: Interaction): Promise<void> {
    if (interaction.isChatInputCommand()) {
      const command = slash.get(interaction.commandName);
      if (!command) return void (await interaction.reply({ content: unknown, flags: MessageFlags.Ephemeral }));
      await command.execute(interaction, services);
    } else if (interaction.isMessageContextMenuCommand()) {
      const command = onMessages.get(interaction.commandName);
      if (!command) return void (await interaction.reply({ content: unknown, flags: MessageFlags.Ephemeral }));
      await command.execute(interaction, services);
    } else if (interaction.isAutocomplete()) {
      await slash.get(interaction.commandName)?.autocomplete?.(interaction, services);
    } else if (interaction.isButton()) {
      if (interaction.customId.startsWith(STOP_PREFIX)) return handleStopButton(interaction, services);
      if (interaction.customId.startsWith(APPROVE_PREFIX)) return handleApprovalButton(interaction, services.approvals);
      if (interaction.customId.startsWith(CONTINUE_PREFIX)) return handleContinueButton(interaction, services.turns);
      await buttonRoutes.find((b) => interaction.customId.startsWith(b.prefix))?.handle(interaction, services);
    } else if (interaction.isModalSubmit()) {
      await modalRoutes.find((m) => interaction.customId.startsWith(m.prefix))?.handle(interaction, services);
    }
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

  return {
    client: client as Client<true>,
    gatewayReady: () => client.ws.shards.size > 0 && client.ws.shards.every((s) => s.status === Status.Ready),
    async stop() {
      await services.runs.stopAll('shutdown', 10_000);
      await client.destroy();
    },
  };
}
