/**
 * Channel records of the fake world: channels, threads (with their metadata), the settings of
 * thread-only channels (forum and media) and the webhooks that post into channels; and the inputs
 * that create channels and threads.
 */

/** A channel permission overwrite: type 0 = role, 1 = member. */
export interface FakeOverwrite {
  id: string;
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

export interface FakeThreadMeta {
  ownerId: string;
  archived: boolean;
  locked: boolean;
  autoArchiveDuration: number;
  archiveTimestamp: string;
  createTimestamp: string;
  invitable: boolean;
  memberIds: Set<string>;
  /** For threads started from a message: that message's id (which is also the thread's id). */
  starterMessageId: string | null;
  /** Tag ids of a forum or media post (`applied_tags`). */
  appliedTags: string[];
  /**
   * A member's forum post whose first message is not there yet (it is still uploading): until it is,
   * the bot's sends answer 40058, as Discord does (threads.mdx, Forums; discord.js issue #8788).
   */
  awaitingStarter?: boolean;
}

/** A tag of a forum or media channel (channel.mdx, Forum Tag Object). */
export interface FakeForumTag {
  id: string;
  /** 0–20 characters. */
  name: string;
  /** Only members with Manage Threads may add or remove it. */
  moderated: boolean;
  emojiId: string | null;
  emojiName: string | null;
}

/** What only thread-only channels (types 15 and 16) have. */
export interface FakeForumSettings {
  availableTags: FakeForumTag[];
  /** Channel flag REQUIRE_TAG (`1 << 4`): a post must carry at least one tag. */
  requireTag: boolean;
  /** Copied into each new post's `rate_limit_per_user`. */
  defaultThreadRateLimitPerUser: number;
}

export interface FakeChannel {
  id: string;
  /** Null for DM channels. */
  guildId: string | null;
  type: number;
  name: string;
  parentId: string | null;
  position: number;
  topic: string | null;
  overwrites: FakeOverwrite[];
  rateLimitPerUser: number;
  lastMessageId: string | null;
  messageCount: number;
  /** Present for threads only. */
  thread: FakeThreadMeta | null;
  /** Minutes; copied onto new threads that do not name a duration (channel.mdx, Channel Structure). */
  defaultAutoArchiveDuration?: number;
  /** Present for forum and media channels only. */
  forum?: FakeForumSettings;
  /** For DM channels: the user on the other side of the bot. */
  recipientId?: string;
  /** Set when a moderator deleted the channel (THREAD_DELETE / CHANNEL_DELETE sent); the API then answers 10003. */
  deleted?: boolean;
}

/** An incoming webhook someone created on a channel (webhook.mdx, Webhook Object, type 1). */
export interface FakeWebhook {
  id: string;
  token: string;
  name: string;
  channelId: string;
  guildId: string;
}

export interface NewChannel {
  name: string;
  type?: number;
  parentId?: string | null;
  topic?: string | null;
  id?: string;
  /** Minutes (60, 1440, 4320, 10080) copied onto new threads that name none. */
  defaultAutoArchiveDuration?: number;
  /** Forum and media channels: their tags, REQUIRE_TAG, and the slow mode copied onto new posts. */
  forum?: { availableTags?: NewForumTag[]; requireTag?: boolean; defaultThreadRateLimitPerUser?: number };
}

/** A tag as a moderator creates it; `emoji` is a unicode emoji. */
export interface NewForumTag {
  name: string;
  moderated?: boolean;
  emoji?: string;
}

export interface NewThread {
  name: string;
  type?: number;
  ownerId?: string;
  archived?: boolean;
  locked?: boolean;
  autoArchiveDuration?: number;
  /** Use the starter message's id as the thread id, as Discord does. */
  starterMessageId?: string | null;
  /** A new id chosen beforehand (a forum post and its first message share it). */
  id?: string;
  appliedTags?: string[];
  rateLimitPerUser?: number;
}
