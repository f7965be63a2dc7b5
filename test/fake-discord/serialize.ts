/**
 * Records → Discord API v10 JSON, shaped like what the real API sends so discord.js builds its
 * structures from them without special cases.
 */
import type { FakeCdn } from './cdn.js';
import { channelJSON } from './channel-json.js';
import type { FakeAttachment, FakeGuild, FakeMember, FakeRole, FakeUser } from './records.js';
import type { FakeWorld } from './world.js';

export { channelJSON } from './channel-json.js';
export { messageJSON, type MessageView } from './message-json.js';

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

