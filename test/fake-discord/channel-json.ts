/**
 * Channel records → channel objects as Discord sends them (channel.mdx, Channel Object and its
 * examples): DMs, threads, text and announcement channels, voice channels (which carry a text chat,
 * hence `last_message_id` and `rate_limit_per_user` in the docs' voice example), and the thread-only
 * forum and media channels with their tags.
 */
import { ChannelKind, type FakeChannel, type FakeForumTag } from './records.js';
import { userJSON } from './serialize.js';
import { isThreadOnly, type FakeWorld } from './world.js';

type Json = Record<string, unknown>;

/** Channel flags (channel.mdx, Channel Flags). */
export const ChannelFlag = { Pinned: 1 << 1, RequireTag: 1 << 4 } as const;

export function channelJSON(world: FakeWorld, channel: FakeChannel): Json {
  if (channel.type === ChannelKind.DM) {
    const user = channel.recipientId ? world.users.get(channel.recipientId) : undefined;
    return {
      id: channel.id, type: channel.type, last_message_id: channel.lastMessageId, flags: 0,
      recipients: user ? [userJSON(user)] : [],
    };
  }
  if (channel.thread) return threadJSON(world, channel);
  const base: Json = {
    id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name,
    position: channel.position, parent_id: channel.parentId, nsfw: false,
    last_message_id: channel.lastMessageId, rate_limit_per_user: channel.rateLimitPerUser, flags: 0,
    permission_overwrites: channel.overwrites.map((o) => ({
      id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString(),
    })),
    ...(channel.defaultAutoArchiveDuration ? { default_auto_archive_duration: channel.defaultAutoArchiveDuration } : {}),
  };
  if (channel.type === ChannelKind.GuildVoice) {
    return { ...base, bitrate: 64000, user_limit: 0, rtc_region: null };
  }
  const forum = channel.forum;
  if (isThreadOnly(channel) && forum) {
    return {
      ...base, topic: channel.topic, flags: forum.requireTag ? ChannelFlag.RequireTag : 0,
      available_tags: forum.availableTags.map(tagJSON), default_reaction_emoji: null,
      default_thread_rate_limit_per_user: forum.defaultThreadRateLimitPerUser, default_sort_order: null,
      ...(channel.type === ChannelKind.GuildForum ? { default_forum_layout: 0 } : {}),
    };
  }
  return { ...base, topic: channel.topic };
}

function threadJSON(world: FakeWorld, channel: FakeChannel): Json {
  const t = channel.thread!;
  const parent = channel.parentId ? world.channels.get(channel.parentId) : undefined;
  return {
    id: channel.id, type: channel.type, guild_id: channel.guildId, parent_id: channel.parentId,
    owner_id: t.ownerId, name: channel.name, last_message_id: channel.lastMessageId,
    rate_limit_per_user: channel.rateLimitPerUser, message_count: channel.messageCount,
    total_message_sent: channel.messageCount, member_count: Math.min(t.memberIds.size, 50), flags: 0,
    thread_metadata: {
      archived: t.archived, auto_archive_duration: t.autoArchiveDuration,
      archive_timestamp: t.archiveTimestamp, locked: t.locked, create_timestamp: t.createTimestamp,
      ...(channel.type === ChannelKind.PrivateThread ? { invitable: t.invitable } : {}),
    },
    // channel.mdx, Channel Structure: applied_tags belongs to threads in forum and media channels.
    ...(parent && isThreadOnly(parent) ? { applied_tags: [...t.appliedTags] } : {}),
  };
}

function tagJSON(tag: FakeForumTag): Json {
  return { id: tag.id, name: tag.name, moderated: tag.moderated, emoji_id: tag.emojiId, emoji_name: tag.emojiName };
}
