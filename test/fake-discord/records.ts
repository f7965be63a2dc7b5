/**
 * The in-memory world of the fake Discord, as plain records tests can read and assert on.
 * Ids are snowflake strings; permission sets are bigints (the API sends them as decimal strings).
 */

import type { FakeChannel } from './channel-records.js';
import type { CallbackRecord, FakeInteraction } from './interaction-records.js';

export type { CallbackRecord, CommandPermission, FakeCommand, FakeInteraction } from './interaction-records.js';
export type { FakeChannel, FakeForumSettings, FakeForumTag, FakeOverwrite, FakeThreadMeta, FakeWebhook } from './channel-records.js';

/** Discord channel type numbers the fake understands. */
export const ChannelKind = {
  GuildText: 0,
  DM: 1,
  GuildVoice: 2,
  GuildCategory: 4,
  GuildAnnouncement: 5,
  AnnouncementThread: 10,
  PublicThread: 11,
  PrivateThread: 12,
  GuildForum: 15,
  GuildMedia: 16,
} as const;

/** Thread-only channels: forum and media (threads.mdx, Forums and Media Channels). */
export function isThreadOnly(channel: { type: number }): boolean {
  return channel.type === ChannelKind.GuildForum || channel.type === ChannelKind.GuildMedia;
}

/** Message types the fake produces (message.mdx, Message Types). */
export const MessageKind = {
  Default: 0,
  ChannelPinnedMessage: 6,
  UserJoin: 7,
  ThreadCreated: 18,
  Reply: 19,
  ChatInputCommand: 20,
  ThreadStarterMessage: 21,
} as const;

/** Message flags the fake sets or honours (forwards, ephemeral replies, the deferred "thinking…" state). */
export const MessageFlag = { HasSnapshot: 1 << 14, Ephemeral: 1 << 6, Loading: 1 << 7 } as const;

export interface FakeUser {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
}

export interface FakeGuild {
  id: string;
  name: string;
  ownerId: string;
  /** The @everyone role has the guild's id, as on Discord. */
  everyoneRoleId: string;
  /** The managed role Discord gives a bot when it joins. */
  botRoleId: string;
}

export interface FakeRole {
  id: string;
  guildId: string;
  name: string;
  permissions: bigint;
  position: number;
  mentionable: boolean;
  /** Set for the bot's managed role. */
  botId: string | null;
}

export interface FakeMember {
  guildId: string;
  userId: string;
  roles: string[];
  nick: string | null;
  joinedAt: string;
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  contentType: string | null;
  description: string | null;
  /** The uploaded bytes; also served at `url`. */
  data: Buffer;
  /** The CDN path, `/attachments/<channel>/<id>/<name>`; every payload signs it afresh. */
  path: string;
  /** A signed URL as issued at upload (payloads carry freshly signed ones). */
  url: string;
  /** Ephemeral uploads (slash-command attachment options) belong to no message. */
  ephemeral?: boolean;
}

/** A previous version of an edited message. */
export interface MessageVersion {
  /** Date.now() of the edit that replaced this version. */
  at: number;
  /** performance.now() of that edit, for measuring edit rates. */
  atMs: number;
  content: string;
  embeds: unknown[];
  components: unknown[];
  attachments: Array<{ id: string; filename: string; size: number }>;
  flags: number;
}

/** Who the message actually notifies, after Discord applies allowed_mentions and permissions. */
export interface Pings {
  everyone: boolean;
  users: string[];
  roles: string[];
}

/**
 * Who sent it and how: the bot over REST (`channel`, `interaction-response`, `followup`), a member or
 * another bot typing (`user`), a webhook, or Discord itself (`system`: joins, thread notices, starters).
 */
export type MessageSource = 'channel' | 'interaction-response' | 'followup' | 'user' | 'webhook' | 'system';

/** What a message points at (message.mdx, Message Reference Structure): a reply's target, a thread notice's thread. */
export interface MessageReferenceRecord {
  /** Null for references to a channel only (THREAD_CREATED points at the thread). */
  messageId: string | null;
  channelId: string;
  guildId: string | null;
  /** 1 FORWARD (the message carries a snapshot); otherwise 0 DEFAULT. */
  type?: 0 | 1;
}

/** A forwarded message as it was when forwarded (message.mdx, Message Snapshot Object): immutable. */
export interface MessageSnapshot {
  type: number;
  content: string;
  embeds: unknown[];
  attachments: FakeAttachment[];
  components: unknown[];
  createdAt: number;
  editedAt: number | null;
  flags: number;
  pings: Pings;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
  /** Discord message type (`MessageKind`): 0 default, 19 reply, 20 chat-input command response, 21 thread starter… */
  type: number;
  content: string;
  embeds: unknown[];
  components: unknown[];
  attachments: FakeAttachment[];
  /** `allowed_mentions` exactly as sent; undefined when the request carried none. */
  allowedMentions: unknown;
  pings: Pings;
  flags: number;
  tts: boolean;
  createdAt: number;
  editedAt: number | null;
  /** Earlier versions, oldest first; the record itself holds the current version. */
  edits: MessageVersion[];
  deleted: boolean;
  source: MessageSource;
  interactionId: string | null;
  reference: MessageReferenceRecord | null;
  /** For webhook messages: the webhook and the name it posted under (the author shown). */
  webhook?: { id: string; username: string } | null;
  /**
   * False for messages a thread's `message_count` leaves out: a forum post's first message and the
   * THREAD_STARTER_MESSAGE of a thread started from a message (channel.mdx, Channel Structure).
   */
  counted?: boolean;
  /** For forwards: the forwarded message's snapshot. */
  snapshot?: MessageSnapshot;
  /** The thread started from this message, if any. */
  threadId: string | null;
  /** Emoji the bot reacted with. */
  reactions: string[];
  /** performance.now() when the message was created. */
  createdAtMs: number;
}

export interface RestCall {
  method: string;
  /** Method and route template, e.g. `POST /channels/:channelId/messages`; `UNKNOWN` for unmatched paths. */
  route: string;
  path: string;
  /** Interaction endpoints (callbacks, interaction-token webhooks): exempt from the global limit. */
  exempt: boolean;
  status: number;
  errorCode: number | null;
  at: number;
  durationMs: number;
}

export interface RateLimitHit {
  channelId: string;
  at: number;
  /** Whether the fake answered 429 (enforce mode) or only noted it (record mode). */
  enforced: boolean;
}

/** Everything observable that happens in the fake; `waitFor` matches on these. */
export type FakeEvent =
  | { kind: 'message'; action: 'create' | 'update' | 'delete'; message: FakeMessage }
  | { kind: 'callback'; interaction: FakeInteraction; callback: CallbackRecord }
  | { kind: 'interaction'; action: 'dispatch' | 'expire'; interaction: FakeInteraction }
  | { kind: 'thread'; action: 'create' | 'update' | 'delete'; channel: FakeChannel }
  | { kind: 'rest'; call: RestCall }
  | { kind: 'typing'; channelId: string; at: number }
  | { kind: 'gateway'; action: 'identify' | 'ready' | 'resume' | 'close'; sessionId: string; detail?: unknown };
