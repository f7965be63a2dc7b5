/**
 * The fake's data model: users, guilds, roles, members, channels, threads and messages in maps, with
 * small builders. Nothing here talks to the network; the gateway and REST layers read and change it.
 */
import {
  channelPermissions, DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, DM_PERMISSIONS, type PermissionWorld,
} from './permissions.js';
import {
  ChannelKind, type FakeChannel, type FakeGuild, type FakeMember, type FakeMessage, type FakeRole, type FakeUser,
  type FakeWebhook, isThreadOnly,
} from './records.js';
import type { NewChannel, NewThread } from './channel-records.js';
import type { SnowflakeCounter } from './snowflake.js';

export type { NewChannel, NewForumTag, NewThread } from './channel-records.js';
export { isThreadOnly } from './records.js';

export class FakeWorld {
  readonly users = new Map<string, FakeUser>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly roles = new Map<string, FakeRole>();
  readonly members = new Map<string, FakeMember>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly webhooks = new Map<string, FakeWebhook>();
  readonly #channelMessages = new Map<string, string[]>();

  constructor(private readonly ids: SnowflakeCounter, readonly botId: string) {}

  nextId(): string {
    return this.ids.next();
  }

  addUser(init: { username: string; globalName?: string | null; bot?: boolean; id?: string }): FakeUser {
    const user: FakeUser = {
      id: init.id ?? this.nextId(),
      username: init.username,
      globalName: init.globalName ?? null,
      bot: init.bot ?? false,
    };
    this.users.set(user.id, user);
    return user;
  }

  /** A guild with its @everyone role, the bot's managed role and the bot as a member. */
  addGuild(init: { name: string; ownerId: string; botPermissions?: bigint; everyonePermissions?: bigint }): FakeGuild {
    const id = this.nextId();
    const botRoleId = this.nextId();
    const guild: FakeGuild = { id, name: init.name, ownerId: init.ownerId, everyoneRoleId: id, botRoleId };
    this.guilds.set(id, guild);
    this.roles.set(id, {
      id, guildId: id, name: '@everyone', position: 0, mentionable: false, botId: null,
      permissions: init.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS,
    });
    const bot = this.users.get(this.botId);
    this.roles.set(botRoleId, {
      id: botRoleId, guildId: id, name: bot?.username ?? 'bot', position: 1, mentionable: false,
      botId: this.botId, permissions: init.botPermissions ?? DEFAULT_BOT_PERMISSIONS,
    });
    this.addMember(id, this.botId, [botRoleId]);
    if (init.ownerId !== this.botId && !this.member(id, init.ownerId)) this.addMember(id, init.ownerId);
    return guild;
  }

  addRole(guildId: string, init: { name: string; permissions?: bigint; mentionable?: boolean }): FakeRole {
    const position = [...this.roles.values()].filter((r) => r.guildId === guildId).length;
    const role: FakeRole = {
      id: this.nextId(), guildId, name: init.name, position, botId: null,
      permissions: init.permissions ?? 0n, mentionable: init.mentionable ?? false,
    };
    this.roles.set(role.id, role);
    return role;
  }

  addMember(guildId: string, userId: string, roles: string[] = [], nick: string | null = null): FakeMember {
    const member: FakeMember = { guildId, userId, roles, nick, joinedAt: new Date().toISOString() };
    this.members.set(`${guildId}:${userId}`, member);
    return member;
  }

  member(guildId: string, userId: string): FakeMember | undefined {
    return this.members.get(`${guildId}:${userId}`);
  }

  membersOf(guildId: string): FakeMember[] {
    return [...this.members.values()].filter((m) => m.guildId === guildId);
  }

  addChannel(guildId: string, init: NewChannel): FakeChannel {
    const position = [...this.channels.values()].filter((c) => c.guildId === guildId && !c.thread).length;
    const channel: FakeChannel = {
      id: init.id ?? this.nextId(), guildId, type: init.type ?? ChannelKind.GuildText, name: init.name,
      parentId: init.parentId ?? null, position, topic: init.topic ?? null, overwrites: [],
      rateLimitPerUser: 0, lastMessageId: null, messageCount: 0, thread: null,
      ...(init.defaultAutoArchiveDuration ? { defaultAutoArchiveDuration: init.defaultAutoArchiveDuration } : {}),
    };
    if (isThreadOnly(channel)) {
      channel.forum = {
        availableTags: (init.forum?.availableTags ?? []).map((t) => ({
          id: this.nextId(), name: t.name, moderated: t.moderated ?? false, emojiId: null, emojiName: t.emoji ?? null,
        })),
        requireTag: init.forum?.requireTag ?? false,
        defaultThreadRateLimitPerUser: init.forum?.defaultThreadRateLimitPerUser ?? 0,
      };
    }
    this.channels.set(channel.id, channel);
    return channel;
  }

  addThread(parent: FakeChannel & { guildId: string }, init: NewThread): FakeChannel {
    const now = new Date().toISOString();
    const ownerId = init.ownerId ?? this.botId;
    const thread: FakeChannel = {
      id: init.starterMessageId ?? init.id ?? this.nextId(), guildId: parent.guildId,
      type: init.type ?? ChannelKind.PublicThread, name: init.name, parentId: parent.id, position: 0,
      topic: null, overwrites: [], rateLimitPerUser: init.rateLimitPerUser ?? 0, lastMessageId: null, messageCount: 0,
      thread: {
        ownerId, archived: init.archived ?? false, locked: init.locked ?? false,
        autoArchiveDuration: init.autoArchiveDuration ?? parent.defaultAutoArchiveDuration ?? 4320,
        archiveTimestamp: now, createTimestamp: now, invitable: true, memberIds: new Set([ownerId]),
        starterMessageId: init.starterMessageId ?? null, appliedTags: init.appliedTags ?? [],
      },
    };
    // threads.mdx, Forum and Media Channel Fields: a forum's last_message_id is its newest post.
    if (isThreadOnly(parent)) parent.lastMessageId = thread.id;
    this.channels.set(thread.id, thread);
    return thread;
  }

  /** The DM channel between the bot and a user, created on first use like Create DM does. */
  dmChannel(userId: string): FakeChannel {
    const existing = [...this.channels.values()].find((c) => c.type === ChannelKind.DM && c.recipientId === userId);
    if (existing) return existing;
    const channel: FakeChannel = {
      id: this.nextId(), guildId: null, type: ChannelKind.DM, name: '', parentId: null, position: 0, topic: null,
      overwrites: [], rateLimitPerUser: 0, lastMessageId: null, messageCount: 0, thread: null, recipientId: userId,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Guilds the user shares with the bot (global commands reach a user's DMs only then). */
  mutualGuilds(userId: string): string[] {
    return [...this.guilds.keys()].filter((id) => this.member(id, userId) !== undefined);
  }

  /** The channel whose overwrites govern `channel`: the parent for threads. */
  permissionChannel(channel: FakeChannel): FakeChannel {
    return channel.thread && channel.parentId ? (this.channels.get(channel.parentId) ?? channel) : channel;
  }

  /** A user's computed permissions in a channel (threads use their parent's overwrites). */
  permissionsIn(channelId: string, userId: string): bigint {
    const channel = this.channels.get(channelId);
    if (channel?.type === ChannelKind.DM) return userId === this.botId || userId === channel.recipientId ? DM_PERMISSIONS : 0n;
    const guild = channel?.guildId ? this.guilds.get(channel.guildId) : undefined;
    if (!channel || !guild) return 0n;
    const world: PermissionWorld = {
      guild, member: this.member(guild.id, userId), roles: (id) => this.roles.get(id),
    };
    return channelPermissions(world, this.permissionChannel(channel), channel.thread !== null);
  }

  storeMessage(message: FakeMessage): void {
    this.messages.set(message.id, message);
    const list = this.#channelMessages.get(message.channelId) ?? [];
    list.push(message.id);
    this.#channelMessages.set(message.channelId, list);
    const channel = this.channels.get(message.channelId);
    if (channel && (message.flags & 64) === 0) {
      channel.lastMessageId = message.id;
      if (message.counted !== false) channel.messageCount += 1;
    }
  }

  /** Messages of a channel in creation order (including deleted ones, flagged). */
  messagesIn(channelId: string): FakeMessage[] {
    return (this.#channelMessages.get(channelId) ?? []).map((id) => this.messages.get(id) as FakeMessage);
  }
}
