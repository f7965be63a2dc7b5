/**
 * Changing the fake world from a test: guilds, channels, threads, users, roles, permission
 * overwrites and moderator actions on threads. Changes made while the bot is connected are
 * announced over the gateway the way Discord announces them.
 */
import { addThreadStarter } from './automated-messages.js';
import type { FakeCore } from './core.js';
import { type GatewaySession, Intent } from './gateway.js';
import { bits, type PermissionInput } from './permissions.js';
import { ChannelKind, type FakeChannel, type FakeGuild, type FakeMember, type FakeRole, type FakeUser } from './records.js';
import { channelJSON, guildCreateJSON, memberJSON, roleJSON, userJSON } from './serialize.js';
import { isThreadOnly, type FakeWorld, type NewChannel } from './world.js';

export interface PermissionChange {
  channelId: string;
  /** Whose overwrite: the bot (default), @everyone, or a role or user id. */
  target?: 'bot' | 'everyone' | string;
  allow?: PermissionInput;
  deny?: PermissionInput;
}

export class WorldAdmin {
  constructor(
    protected readonly core: FakeCore,
    private readonly guildPermissions: { botPermissions?: bigint; everyonePermissions?: bigint },
  ) {}

  /** The whole in-memory model (maps of users, guilds, roles, members, channels, messages). */
  get state(): FakeWorld {
    return this.core.world;
  }

  addUser(init: { username: string; globalName?: string | null; bot?: boolean }): FakeUser {
    return this.core.world.addUser(init);
  }

  /** A guild the bot is in (GUILD_CREATE if connected). The owner defaults to a new user. */
  addGuild(init: { name: string; ownerId?: string }): FakeGuild {
    const ownerId = init.ownerId ?? this.addUser({ username: `${init.name}-owner` }).id;
    const guild = this.core.world.addGuild({ name: init.name, ownerId, ...this.guildPermissions });
    this.core.gateway?.dispatch('GUILD_CREATE', (s: GatewaySession) => guildCreateJSON(this.core.world, guild, {
      allMembers: (s.intents & Intent.GuildPresences) !== 0,
    }), { guildId: guild.id, intent: Intent.Guilds });
    return guild;
  }

  addMember(init: { guildId?: string; userId: string; roleIds?: string[]; nick?: string }): FakeMember {
    const guildId = init.guildId ?? this.defaultGuildId();
    const member = this.core.world.addMember(guildId, init.userId, init.roleIds ?? [], init.nick ?? null);
    this.core.gateway?.dispatch('GUILD_MEMBER_ADD', { ...memberJSON(this.core.world, member), guild_id: guildId }, { guildId, intent: Intent.GuildMembers });
    return member;
  }

  /** A member leaves (or is kicked): GUILD_MEMBER_REMOVE (Guild Members intent); the API then answers 10007 Unknown Member for them. */
  removeMember(init: { guildId?: string; userId: string }): void {
    const guildId = init.guildId ?? this.defaultGuildId();
    if (!this.core.world.members.delete(`${guildId}:${init.userId}`)) throw new Error(`fake-discord: ${init.userId} is not a member of ${guildId}`);
    const user = this.core.world.users.get(init.userId);
    this.core.gateway?.dispatch('GUILD_MEMBER_REMOVE', { guild_id: guildId, user: user ? userJSON(user) : { id: init.userId } }, { guildId, intent: Intent.GuildMembers });
  }

  /** A moderator gives a member these roles (replacing the others): GUILD_MEMBER_UPDATE (Guild Members intent). */
  setMemberRoles(init: { guildId?: string; userId: string; roleIds: string[] }): FakeMember {
    const guildId = init.guildId ?? this.defaultGuildId();
    const member = this.core.world.member(guildId, init.userId);
    if (!member) throw new Error(`fake-discord: ${init.userId} is not a member of ${guildId}`);
    member.roles = [...init.roleIds];
    this.core.gateway?.dispatch('GUILD_MEMBER_UPDATE', { ...memberJSON(this.core.world, member), guild_id: guildId }, { guildId, intent: Intent.GuildMembers });
    return member;
  }

  addRole(init: { guildId?: string; name: string; permissions?: PermissionInput; mentionable?: boolean }): FakeRole {
    const guildId = init.guildId ?? this.defaultGuildId();
    const role = this.core.world.addRole(guildId, {
      name: init.name, permissions: init.permissions === undefined ? 0n : bits(init.permissions), mentionable: init.mentionable,
    });
    this.core.gateway?.dispatch('GUILD_ROLE_CREATE', { guild_id: guildId, role: roleJSON(role) }, { guildId, intent: Intent.Guilds });
    return role;
  }

  /** Replaces a role's guild-level permissions (e.g. the bot's managed role). */
  setRolePermissions(roleId: string, permissions: PermissionInput): FakeRole {
    const role = this.core.world.roles.get(roleId);
    if (!role) throw new Error(`fake-discord: no role ${roleId}`);
    role.permissions = bits(permissions);
    this.core.gateway?.dispatch('GUILD_ROLE_UPDATE', { guild_id: role.guildId, role: roleJSON(role) }, { guildId: role.guildId, intent: Intent.Guilds });
    return role;
  }

  /**
   * A server channel (CHANNEL_CREATE if connected): text by default, or `type` 2 voice (with its text
   * chat), 5 announcement, 15 forum or 16 media. Forum and media channels take `forum.availableTags`
   * (their ids are then on `channel.forum.availableTags`), `forum.requireTag`, and all channels
   * `defaultAutoArchiveDuration`.
   */
  addChannel(init: Omit<NewChannel, 'id'> & { guildId?: string }): FakeChannel {
    const guildId = init.guildId ?? this.defaultGuildId();
    if (!this.core.world.guilds.has(guildId)) throw new Error(`fake-discord: no guild ${guildId}`);
    const channel = this.core.world.addChannel(guildId, init);
    this.core.gateway?.dispatch('CHANNEL_CREATE', channelJSON(this.core.world, channel), { guildId, intent: Intent.Guilds });
    return channel;
  }

  /**
   * A thread someone else made (THREAD_CREATE with `newly_created`). Owner defaults to the default user.
   * With `messageId` it is started from that message of the parent: it takes the message's id, the
   * message gets its `thread` (MESSAGE_UPDATE), and the thread's history opens with a
   * THREAD_STARTER_MESSAGE (type 21) pointing back at it (channel.mdx, Start Thread from Message).
   */
  addThread(init: {
    parentId?: string; name: string; ownerId?: string; archived?: boolean; locked?: boolean; type?: number; messageId?: string;
  }): FakeChannel {
    const parent = this.core.channel(init.parentId ?? this.defaultChannelId());
    if (parent.guildId === null) throw new Error('fake-discord: threads live in server channels, not DMs');
    if (isThreadOnly(parent)) throw new Error('fake-discord: posts in a forum are made with createForumPost');
    const from = init.messageId ? this.core.message(parent.id, init.messageId) : undefined;
    if (from?.threadId) throw new Error(`fake-discord: message ${from.id} already has a thread`);
    const type = from ? (parent.type === ChannelKind.GuildAnnouncement ? ChannelKind.AnnouncementThread : ChannelKind.PublicThread) : undefined;
    const thread = this.core.world.addThread(parent as FakeChannel & { guildId: string }, {
      name: init.name, type: type ?? init.type ?? ChannelKind.PublicThread, ownerId: init.ownerId ?? this.defaultUserId(),
      archived: init.archived, locked: init.locked, starterMessageId: from?.id ?? null,
    });
    this.core.dispatchThread('THREAD_CREATE', thread, { newly_created: true });
    if (from) {
      from.threadId = thread.id;
      addThreadStarter(this.core, thread, from);
      this.core.announceUpdate(from);
    }
    return thread;
  }

  /** A moderator archives, locks or renames a thread (THREAD_UPDATE). */
  updateThread(threadId: string, change: { archived?: boolean; locked?: boolean; name?: string }): FakeChannel {
    const thread = this.core.channel(threadId);
    if (!thread.thread) throw new Error(`fake-discord: ${threadId} is not a thread`);
    if (change.name !== undefined) thread.name = change.name;
    if (change.locked !== undefined) thread.thread.locked = change.locked;
    if (change.archived !== undefined) {
      thread.thread.archived = change.archived;
      thread.thread.archiveTimestamp = new Date().toISOString();
    }
    this.core.dispatchThread('THREAD_UPDATE', thread);
    return thread;
  }

  /**
   * Sets the permission overwrite for the bot (default), @everyone, a role or a user on a channel
   * (threads follow their parent, so pass the parent). Replaces any previous overwrite for that target.
   */
  setPermissions(change: PermissionChange): FakeChannel {
    const channel = this.core.channel(change.channelId);
    if (channel.guildId === null) throw new Error('fake-discord: DM channels have no permission overwrites');
    const target = change.target ?? 'bot';
    const id = target === 'bot' ? this.core.botId : target === 'everyone' ? channel.guildId : target;
    const type: 0 | 1 = this.core.world.roles.has(id) ? 0 : 1;
    channel.overwrites = channel.overwrites.filter((o) => o.id !== id);
    const allow = change.allow === undefined ? 0n : bits(change.allow);
    const deny = change.deny === undefined ? 0n : bits(change.deny);
    if (allow !== 0n || deny !== 0n) channel.overwrites.push({ id, type, allow, deny });
    this.core.dispatchChannelUpdate(channel);
    return channel;
  }

  /** The bot's computed permissions in a channel. */
  botPermissionsIn(channelId: string): bigint {
    return this.core.world.permissionsIn(channelId, this.core.botId);
  }

  protected createDefaultWorld() {
    const world = this.core.world;
    const owner = world.addUser({ username: 'guild-owner' });
    const alice = world.addUser({ username: 'alice', globalName: 'Alice' });
    const bob = world.addUser({ username: 'bob', globalName: 'Bob' });
    const guild = world.addGuild({ name: 'Test Guild', ownerId: owner.id, ...this.guildPermissions });
    world.addMember(guild.id, alice.id);
    world.addMember(guild.id, bob.id);
    const category = world.addChannel(guild.id, { name: 'Text Channels', type: ChannelKind.GuildCategory });
    const general = world.addChannel(guild.id, { name: 'general', parentId: category.id });
    const random = world.addChannel(guild.id, { name: 'random', parentId: category.id });
    return {
      guildId: guild.id, everyoneRoleId: guild.everyoneRoleId, botRoleId: guild.botRoleId, categoryId: category.id,
      channelId: general.id, otherChannelId: random.id, ownerId: owner.id, userId: alice.id, otherUserId: bob.id,
    };
  }

  protected defaultGuildId(): string {
    const first = this.core.world.guilds.keys().next();
    if (first.done) throw new Error('fake-discord: no guild; pass guildId or add one');
    return first.value;
  }

  private defaultChannelId(): string {
    const first = [...this.core.world.channels.values()].find((c) => c.type === ChannelKind.GuildText);
    if (!first) throw new Error('fake-discord: no text channel; pass parentId');
    return first.id;
  }

  private defaultUserId(): string {
    const first = [...this.core.world.users.values()].find((u) => !u.bot);
    return first?.id ?? this.core.botId;
  }
}
