/**
 * Messages members (or other bots) type, and their edits, as the Discord client sends them: the
 * client only lets a member write where they have View Channel and Send Messages (Send Messages in
 * Threads inside a thread or a forum post; permissions.mdx, Inherited Permissions), attach with Attach
 * Files, reply with Read Message History; nothing is typed into a forum itself. A reply pings its
 * target's author unless the member turns the ping off, which the client sends as
 * `allowed_mentions.replied_user: false` (message.mdx, Allowed Mentions Object).
 */
import type { FakeCore } from './core.js';
import { namesOf, Permission } from './permissions.js';
import { ChannelKind, type FakeChannel, type FakeMessage, MessageFlag, MessageKind } from './records.js';
import { isThreadOnly } from './world.js';

export interface UserMessageInput {
  channelId?: string;
  userId?: string;
  content: string;
  /** Prefix the content with a mention of the bot (`<@id> `). */
  mentionBot?: boolean;
  /** Reply to this message (same channel); pings its author unless `pingReply` is false. */
  replyTo?: string;
  /** With `replyTo`: the client's "@ ON" toggle. Default true, as the Discord client does. */
  pingReply?: boolean;
  /** Write in the user's DM with the bot instead (they must share a server with it). */
  dm?: boolean;
  files?: Array<{ filename: string; data: Buffer | string; contentType?: string }>;
  /** Embeds, as another bot could send them (members cannot). */
  embeds?: unknown[];
  /** `allowed_mentions` as another bot would send it; members' clients send none (but for the reply ping). */
  allowedMentions?: unknown;
}

/** Throws a test error when the Discord client would not let this user do it here. */
export function requireUserPermissions(core: FakeCore, channel: FakeChannel, userId: string, needed: bigint, what: string): void {
  const have = core.world.permissionsIn(channel.id, userId);
  const missing = (needed | Permission.ViewChannel) & ~have;
  if (missing !== 0n) {
    throw new Error(`fake-discord: user ${userId} cannot ${what} in ${channel.id} without ${namesOf(missing).join(', ')}`);
  }
}

/** Builds, stores and dispatches a message typed by a user. */
export function userMessage(core: FakeCore, input: UserMessageInput & { channelId: string; userId: string }): FakeMessage {
  const channel = input.dm ? dmWith(core, input.userId) : core.channel(input.channelId);
  if (isThreadOnly(channel)) {
    throw new Error(`fake-discord: #${channel.name} is a forum; members start a post (createForumPost) or write inside one`);
  }
  if (channel.type === ChannelKind.GuildCategory) throw new Error(`fake-discord: ${channel.id} is a category; nothing is written there`);
  if (input.replyTo && core.world.messages.get(input.replyTo)?.channelId !== channel.id) {
    throw new Error(`fake-discord: no message ${input.replyTo} in ${channel.id} to reply to`);
  }
  const send = channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages;
  const needed = send | (input.files?.length ? Permission.AttachFiles : 0n) | (input.replyTo ? Permission.ReadMessageHistory : 0n);
  requireUserPermissions(core, channel, input.userId, needed, 'write');
  const moderator = (core.world.permissionsIn(channel.id, input.userId) & Permission.ManageThreads) !== 0n;
  if (channel.thread?.locked && !moderator) throw new Error(`fake-discord: thread ${channel.id} is locked; only moderators can post`);
  if (channel.thread?.archived) {
    // threads.mdx: "Sending a message will automatically unarchive the thread".
    channel.thread.archived = false;
    channel.thread.archiveTimestamp = new Date().toISOString();
    core.dispatchThread('THREAD_UPDATE', channel);
  }
  const content = input.mentionBot ? `<@${core.botId}> ${input.content}` : input.content;
  const files = (input.files ?? []).map((f, index) => {
    const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
    return { field: `files[${index}]`, index, filename: f.filename, size: data.length, contentType: f.contentType ?? null, data };
  });
  const allowed = input.allowedMentions
    ?? (input.replyTo && input.pingReply === false ? { parse: ['users', 'roles', 'everyone'], replied_user: false } : undefined);
  const message = core.buildMessage({
    channel, authorId: input.userId, files, source: 'user',
    body: {
      content, ...(input.embeds ? { embeds: input.embeds } : {}), ...(allowed === undefined ? {} : { allowed_mentions: allowed }),
      ...(input.replyTo ? { message_reference: { message_id: input.replyTo } } : {}),
    },
  });
  return core.commit(message);
}

/**
 * The author edits their message (MESSAGE_UPDATE with the new content and `edited_timestamp`; the
 * mentions are parsed again, keeping the reply ping as it was). Archived threads refuse edits; locked
 * ones too unless the author has Manage Threads (threads.mdx).
 */
export function userEdit(core: FakeCore, message: FakeMessage, content: string): FakeMessage {
  if (message.deleted) throw new Error(`fake-discord: message ${message.id} was deleted`);
  if (message.source !== 'user') throw new Error(`fake-discord: message ${message.id} was not typed by a user; the bot edits over REST`);
  const channel = core.channel(message.channelId);
  const t = channel.thread;
  const moderator = (core.world.permissionsIn(channel.id, message.authorId) & Permission.ManageThreads) !== 0n;
  if (t?.archived) throw new Error(`fake-discord: thread ${channel.id} is archived; messages there cannot be edited`);
  if (t?.locked && !moderator) throw new Error(`fake-discord: thread ${channel.id} is locked; only moderators can edit there`);
  const body = { content, ...(message.allowedMentions === undefined ? {} : { allowed_mentions: message.allowedMentions }) };
  return core.edit(message, body, { via: 'message' });
}

/** message.mdx, Message Reference Types: FORWARD "can only be used for basic messages". */
const FORWARDABLE: number[] = [MessageKind.Default, MessageKind.Reply, MessageKind.ChatInputCommand, 23];

/**
 * A member forwards a message into another channel (message.mdx, Forwards): a message of its own with
 * no content, `message_reference` of type 1 pointing at the original (whose channel the bot, or the
 * next reader, may not be able to see) and a frozen `message_snapshots` copy; flag HAS_SNAPSHOT.
 */
export function userForward(core: FakeCore, input: { messageId: string; channelId: string; userId: string }): FakeMessage {
  const original = core.world.messages.get(input.messageId);
  if (!original || original.deleted) throw new Error(`fake-discord: no message ${input.messageId} to forward`);
  if (!FORWARDABLE.includes(original.type)) throw new Error(`fake-discord: a message of type ${original.type} cannot be forwarded`);
  requireUserPermissions(core, core.channel(original.channelId), input.userId, Permission.ViewChannel, 'forward from');
  const channel = core.channel(input.channelId);
  if (isThreadOnly(channel)) throw new Error(`fake-discord: #${channel.name} is a forum; forward into one of its posts`);
  requireUserPermissions(core, channel, input.userId, channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages, 'write');
  const message = core.buildMessage({
    channel, authorId: input.userId, source: 'user', body: { content: '' },
    reference: { type: 1, messageId: original.id, channelId: original.channelId, guildId: original.guildId },
    snapshot: {
      type: original.type, content: original.content, embeds: [...original.embeds], attachments: [...original.attachments],
      components: [...original.components], createdAt: original.createdAt, editedAt: original.editedAt, flags: original.flags,
      pings: { ...original.pings, users: [...original.pings.users], roles: [...original.pings.roles] },
    },
  });
  message.flags |= MessageFlag.HasSnapshot;
  return core.commit(message);
}

function dmWith(core: FakeCore, userId: string): FakeChannel {
  // A user can write to a bot only when they share a server with it (or installed it, not modelled).
  if (core.world.mutualGuilds(userId).length === 0) throw new Error(`fake-discord: user ${userId} shares no server with the bot, so cannot DM it`);
  return core.world.dmChannel(userId);
}
