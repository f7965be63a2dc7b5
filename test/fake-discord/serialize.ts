/**
 * Records → Discord API v10 JSON, shaped like what the real API sends so discord.js builds its
 * structures from them without special cases.
 */
import type { FakeCdn } from './cdn.js';
import {
  ChannelKind, type FakeAttachment, type FakeChannel, type FakeGuild, type FakeInteraction, type FakeMember, type FakeMessage,
  type FakeRole, type FakeUser,
} from './records.js';
import type { FakeWorld } from './world.js';

type Json = Record<string, unknown>;

export function userJSON(user: FakeUser): Json {
  return {
    id: user.id, username: user.username, global_name: user.globalName, discriminator: '0', avatar: null,
    bot: user.bot || undefined, public_flags: 0, flags: 0, banner: null, accent_color: null,
    avatar_decoration_data: null,
  };
}

export function memberJSON(world: FakeWorld, member: FakeMember, withUser = true): Json {
  const user = world.users.get(member.userId);
  return {
    ...(withUser && user ? { user: userJSON(user) } : {}),
    nick: member.nick, avatar: null, roles: [...member.roles], joined_at: member.joinedAt,
    premium_since: null, deaf: false, mute: false, flags: 0, pending: false,
    communication_disabled_until: null,
  };
}

export function roleJSON(role: FakeRole): Json {
  return {
    id: role.id, name: role.name, color: 0, hoist: false, icon: null, unicode_emoji: null,
    position: role.position, permissions: role.permissions.toString(), managed: role.botId !== null,
    mentionable: role.mentionable, flags: 0, ...(role.botId ? { tags: { bot_id: role.botId } } : {}),
  };
}

export function channelJSON(world: FakeWorld, channel: FakeChannel): Json {
  if (channel.type === ChannelKind.DM) {
    const user = channel.recipientId ? world.users.get(channel.recipientId) : undefined;
    return {
      id: channel.id, type: channel.type, last_message_id: channel.lastMessageId, flags: 0,
      recipients: user ? [userJSON(user)] : [],
    };
  }
  const t = channel.thread;
  if (t) {
    return {
      id: channel.id, type: channel.type, guild_id: channel.guildId, parent_id: channel.parentId,
      owner_id: t.ownerId, name: channel.name, last_message_id: channel.lastMessageId,
      rate_limit_per_user: channel.rateLimitPerUser, message_count: channel.messageCount,
      total_message_sent: channel.messageCount, member_count: Math.min(t.memberIds.size, 50), flags: 0,
      thread_metadata: {
        archived: t.archived, auto_archive_duration: t.autoArchiveDuration,
        archive_timestamp: t.archiveTimestamp, locked: t.locked, create_timestamp: t.createTimestamp,
        ...(channel.type === 12 ? { invitable: t.invitable } : {}),
      },
    };
  }
  return {
    id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name,
    position: channel.position, parent_id: channel.parentId, topic: channel.topic, nsfw: false,
    last_message_id: channel.lastMessageId, rate_limit_per_user: channel.rateLimitPerUser, flags: 0,
    permission_overwrites: channel.overwrites.map((o) => ({
      id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString(),
    })),
  };
}

/**
 * The GUILD_CREATE payload: the guild with its roles, channels, active threads and members. Without
 * the GUILD_PRESENCES intent Discord sends only the connecting bot's member (and members in voice,
 * which the fake has none of): gateway-events.mdx, Request Guild Members; discord-api-docs #3968.
 */
export function guildCreateJSON(world: FakeWorld, guild: FakeGuild, options: { allMembers: boolean } = { allMembers: true }): Json {
  const channels = [...world.channels.values()].filter((c) => c.guildId === guild.id && !c.deleted);
  const members = world.membersOf(guild.id);
  const sent = options.allMembers ? members : members.filter((m) => m.userId === world.botId);
  return {
    id: guild.id, name: guild.name, icon: null, splash: null, discovery_splash: null, banner: null,
    owner_id: guild.ownerId, afk_channel_id: null, afk_timeout: 300, verification_level: 0,
    default_message_notifications: 1, explicit_content_filter: 0, mfa_level: 0, nsfw_level: 0,
    premium_tier: 0, premium_subscription_count: 0, premium_progress_bar_enabled: false,
    system_channel_id: null, system_channel_flags: 0, rules_channel_id: null,
    public_updates_channel_id: null, safety_alerts_channel_id: null, preferred_locale: 'en-US',
    features: [], description: null, vanity_url_code: null, application_id: null, max_members: 500000,
    max_video_channel_users: 25, max_stage_video_channel_users: 50,
    joined_at: world.member(guild.id, world.botId)?.joinedAt ?? new Date().toISOString(),
    large: false, unavailable: false, member_count: members.length, lazy: true,
    roles: [...world.roles.values()].filter((r) => r.guildId === guild.id).map(roleJSON),
    members: sent.map((m) => memberJSON(world, m)),
    channels: channels.filter((c) => !c.thread).map((c) => channelJSON(world, c)),
    threads: channels.filter((c) => c.thread && !c.thread.archived).map((c) => channelJSON(world, c)),
    emojis: [], stickers: [], presences: [], voice_states: [], stage_instances: [],
    guild_scheduled_events: [], soundboard_sounds: [], embedded_activities: [],
  };
}

/** An attachment object; with a CDN, its URL is signed afresh as Discord does in every payload. */
export function attachmentJSON(a: FakeAttachment, cdn?: FakeCdn): Json {
  const url = cdn ? cdn.sign(a.path) : a.url;
  return {
    id: a.id, filename: a.filename, size: a.size, url, proxy_url: url,
    ...(a.contentType ? { content_type: a.contentType } : {}),
    ...(a.description ? { description: a.description } : {}),
    ...(a.ephemeral ? { ephemeral: true } : {}),
  };
}

export interface MessageView {
  applicationId: string;
  /** Hide content, embeds, attachments and components (no Message Content access). */
  hideContent?: boolean;
  /** Include `member` objects (gateway events in guilds). */
  withMember?: boolean;
  /** Lets messages sent through an interaction carry `interaction_metadata`. */
  interactions?: ReadonlyMap<string, FakeInteraction>;
  /** Signs attachment URLs afresh. */
  cdn?: FakeCdn;
}

export function messageJSON(world: FakeWorld, m: FakeMessage, view: MessageView): Json {
  const author = world.users.get(m.authorId);
  const member = m.guildId ? world.member(m.guildId, m.authorId) : undefined;
  const hide = view.hideContent === true;
  const thread = m.threadId ? world.channels.get(m.threadId) : undefined;
  const viaInteraction = m.source === 'interaction-response' || m.source === 'followup';
  const source = m.interactionId ? view.interactions?.get(m.interactionId) : undefined;
  const interaction = viaInteraction && source ? interactionMeta(world, m, source) : undefined;
  return {
    id: m.id, channel_id: m.channelId, ...(m.guildId ? { guild_id: m.guildId } : {}),
    author: author ? userJSON(author) : { id: m.authorId, username: 'unknown', discriminator: '0' },
    ...(view.withMember && member && !viaInteraction ? { member: memberJSON(world, member, false) } : {}),
    content: hide ? '' : m.content,
    timestamp: new Date(m.createdAt).toISOString(),
    edited_timestamp: m.editedAt === null ? null : new Date(m.editedAt).toISOString(),
    tts: m.tts, mention_everyone: m.pings.everyone,
    mentions: m.pings.users.flatMap((id) => {
      const u = world.users.get(id);
      const mm = m.guildId ? world.member(m.guildId, id) : undefined;
      return u ? [{ ...userJSON(u), ...(mm ? { member: memberJSON(world, mm, false) } : {}) }] : [];
    }),
    mention_roles: [...m.pings.roles],
    attachments: hide ? [] : m.attachments.map((a) => attachmentJSON(a, view.cdn)),
    embeds: hide ? [] : m.embeds, components: hide ? [] : m.components,
    pinned: false, type: m.type, flags: m.flags,
    ...(m.reactions.length ? { reactions: reactionsJSON(m.reactions) } : {}),
    ...(viaInteraction ? { webhook_id: view.applicationId, application_id: view.applicationId } : {}),
    ...(interaction ?? {}),
    ...(m.reference ? { message_reference: { type: 0, message_id: m.reference.messageId, channel_id: m.reference.channelId, ...(m.guildId ? { guild_id: m.guildId } : {}) } } : {}),
    ...(thread ? { thread: channelJSON(world, thread) } : {}),
  };
}

function reactionsJSON(emoji: string[]): Json[] {
  return emoji.map((name) => ({
    count: 1, count_details: { burst: 0, normal: 1 }, me: true, me_burst: false, burst_colors: [],
    emoji: { id: null, name },
  }));
}

function interactionMeta(world: FakeWorld, m: FakeMessage, i: FakeInteraction): Json {
  const user = world.users.get(i.userId);
  const userJson = user ? userJSON(user) : { id: i.userId };
  return {
    interaction_metadata: {
      id: i.id, type: i.type, user: userJson, authorizing_integration_owners: { '0': i.guildId ?? '0' },
      ...(i.commandName && i.type === 2 ? { name: i.commandName, command_type: i.commandType ?? 1 } : {}),
      ...(m.source === 'followup' && i.originalMessageId ? { original_response_message_id: i.originalMessageId } : {}),
      ...(i.messageId ? { interacted_message_id: i.messageId } : {}),
    },
    ...(i.type === 2 ? { interaction: { id: i.id, type: i.type, name: i.commandName, user: userJson } } : {}),
  };
}
