/**
 * Where a turn's messages go. Normally a thread; when the bot may not create one, the interaction's
 * own webhook (follow-ups need no channel permission), so the person still gets an answer.
 */
import type { ActionRowBuilder, AttachmentBuilder, ButtonBuilder, Client, DMChannel, Message, RepliableInteraction, ThreadChannel, VoiceChannel } from 'discord.js';
import { InteractionWebhook, PermissionFlagsBits, Routes } from 'discord.js';
import { DiscordCode, discordCode, missingInThread, missingPermissions, threadClosed, threadProblem } from './permissions.js';
import { NO_MENTIONS } from '../members.js';

/** A message the bot posted, by ids (the /ask reply, an approval request). */
export interface MessageRef {
  channelId: string;
  messageId: string;
}

/** Where a turn posts: a thread, or (no thread could be had) the webhook of the interaction that asked. */
export type PlaceRef =
  | { kind: 'thread'; threadId: string }
  /** An interaction's webhook lives 15 minutes: a turn posting there cannot wait longer than that. */
  | { kind: 'interaction'; applicationId: string; token: string; channelId: string; expiresAt: number };

export interface Outgoing {
  content: string;
  components?: Array<ActionRowBuilder<ButtonBuilder>>;
  files?: AttachmentBuilder[];
}

export interface TurnTarget {
  /** The conversation this turn belongs to (the thread id), or undefined when there is no memory. */
  conversationKey: string | undefined;
  /** The bot's client (posting to the log channel, for instance). */
  client: Client;
  send(message: Outgoing): Promise<Message>;
  edit(message: Message, update: Outgoing): Promise<void>;
  /** Delete a message the turn posted (a draft that was not the answer after all). */
  remove(message: Message): Promise<void>;
  /** Show "threadwise is typing…" for a few seconds (or until the next message). */
  typing(): Promise<void>;
  /** Whether messages here may carry files (Attach Files). */
  canAttachFiles(): boolean;
  /** Why the turn cannot be answered here now (checked before any model call), or undefined. */
  preflight?(): string | undefined;
  /** The permissions the bot lacks here, of those it needs to post, by name (to say which after a refusal). */
  missingPermissions?(): string[];
}

/** A post refused before it was sent: the thread is deleted or locked, so Discord would refuse it anyway. */
export class ThreadClosedError extends Error {
  constructor(readonly why: 'deleted' | 'locked') {
    super(`the thread is ${why}`);
  }
}

export function threadTarget(thread: ThreadChannel): TurnTarget {
  // An archived (not locked) thread is reopened once, then the send is retried.
  const withUnarchive = async <T>(op: () => Promise<T>): Promise<T> => {
    // Nothing is sent into a deleted or locked thread: no failing requests, no unarchive attempts.
    const closed = threadClosed(thread);
    if (closed) throw new ThreadClosedError(closed);
    try {
      return await op();
    } catch (error) {
      if (discordCode(error) !== DiscordCode.ThreadArchived) throw error;
      await thread.setArchived(false);
      return op();
    }
  };
  return {
    conversationKey: thread.id,
    client: thread.client,
    send: (m) => withUnarchive(() => thread.send({ content: m.content, components: m.components ?? [], files: m.files, allowedMentions: NO_MENTIONS })),
    edit: async (message, m) => {
      await withUnarchive(() => message.edit({ content: m.content, components: m.components ?? [], ...(m.files ? { files: m.files } : {}), allowedMentions: NO_MENTIONS }));
    },
    remove: async (message) => {
      if (threadClosed(thread)) return;
      await message.delete();
    },
    typing: async () => {
      if (!threadClosed(thread)) await thread.sendTyping();
    },
    canAttachFiles: () => thread.guild.members.me ? thread.permissionsFor(thread.guild.members.me).has(PermissionFlagsBits.AttachFiles) : true,
    preflight: () => threadProblem(thread),
    missingPermissions: () => missingInThread(thread),
  };
}

/**
 * A channel that is not a thread, answered in place: a voice channel's text chat, or a DM. Its id is the
 * conversation's key, so the bot remembers what was said there like in its own threads.
 */
export function channelTarget(channel: DMChannel | VoiceChannel): TurnTarget {
  const me = channel.isDMBased() ? undefined : channel.guild.members.me;
  const has = (permission: bigint) => !me || channel.isDMBased() || channel.permissionsFor(me).has(permission);
  return {
    conversationKey: channel.id,
    client: channel.client,
    send: (m) => channel.send({ content: m.content, components: m.components ?? [], files: m.files, allowedMentions: NO_MENTIONS }),
    edit: async (message, m) => {
      await message.edit({ content: m.content, components: m.components ?? [], ...(m.files ? { files: m.files } : {}), allowedMentions: NO_MENTIONS });
    },
    remove: async (message) => {
      await message.delete();
    },
    typing: async () => {
      await channel.sendTyping();
    },
    canAttachFiles: () => has(PermissionFlagsBits.AttachFiles),
    preflight: () => (me && !channel.isDMBased() && missingPermissions(channel.permissionsFor(me), ['View Channel', 'Send Messages']).length > 0
      ? 'I cannot post in this channel (I am missing View Channel or Send Messages), so I did not answer.'
      : undefined),
  };
}

/**
 * An interaction's webhook as a target: follow-ups need no channel permission, so a person still gets an
 * answer where no thread could be had. Works for a live interaction and, rebuilt from its token, for a
 * turn resumed later in its token's 15 minutes.
 */
export function webhookTarget(webhook: InteractionWebhook, canAttachFiles: () => boolean): TurnTarget {
  return {
    conversationKey: undefined,
    client: webhook.client,
    send: (m) => webhook.send({ content: m.content, components: m.components ?? [], files: m.files, allowedMentions: NO_MENTIONS }),
    edit: async (message, m) => {
      await webhook.editMessage(message, { content: m.content, components: m.components ?? [], ...(m.files ? { files: m.files } : {}), allowedMentions: NO_MENTIONS });
    },
    remove: async (message) => {
      await webhook.deleteMessage(message);
    },
    // An interaction's messages need no channel permission, and no typing indicator goes through it.
    typing: async () => undefined,
    canAttachFiles,
  };
}

export function interactionTarget(interaction: RepliableInteraction): TurnTarget {
  return webhookTarget(interaction.webhook, () => interaction.appPermissions?.has(PermissionFlagsBits.AttachFiles) ?? true);
}

/** The target of a place kept as data (a resumed turn): its thread fetched, or its interaction's webhook rebuilt. */
export async function targetOf(client: Client<true>, place: PlaceRef): Promise<TurnTarget | undefined> {
  if (place.kind === 'interaction') return Date.now() < place.expiresAt ? webhookTarget(new InteractionWebhook(client, place.applicationId, place.token), () => true) : undefined;
  const channel = await client.channels.fetch(place.threadId).catch(() => null);
  return channel?.isThread() ? threadTarget(channel) : undefined;
}

/**
 * Messages of a place reached by ids alone (a turn waiting for approval, taken up after a restart: its
 * thread need not be cached): edit one, post a new one. Through the channel's REST routes, or through the
 * interaction's webhook for a turn answering there.
 */
export interface PlaceMessages {
  edit(messageId: string, update: { content?: string; components?: [] }): Promise<void>;
  /** Post a message (with buttons); resolves with its id. */
  post(content: string, components?: Array<ActionRowBuilder<ButtonBuilder>>): Promise<string>;
}

export function placeMessages(client: Client<true>, place: PlaceRef): PlaceMessages {
  const allowed_mentions = { parse: [] as string[] };
  if (place.kind === 'interaction') {
    const webhook = new InteractionWebhook(client, place.applicationId, place.token);
    return {
      edit: async (messageId, update) => void (await webhook.editMessage(messageId, { ...update, allowedMentions: NO_MENTIONS })),
      post: async (content, components = []) => (await webhook.send({ content, components, allowedMentions: NO_MENTIONS })).id,
    };
  }
  return {
    edit: async (messageId, update) => void (await client.rest.patch(Routes.channelMessage(place.threadId, messageId), { body: { ...update, allowed_mentions } })),
    post: async (content, components = []) => {
      const sent = (await client.rest.post(Routes.channelMessages(place.threadId), { body: { content, components: components.map((c) => c.toJSON()), allowed_mentions } })) as { id: string };
      return sent.id;
    },
  };
}
