/**
 * What server admins and moderators do while the bot runs: register the bot's commands (as its
 * deploy script would), set command permissions in Server Settings > Integrations, delete threads and
 * messages. Each is announced over the gateway as Discord announces it.
 */
import { ApiError } from './api-error.js';
import { overwriteCommands } from './command-schema.js';
import type { CommandPermission, FakeChannel, FakeCommand, FakeMessage } from './records.js';
import { WorldAdmin } from './world-admin.js';
import { Intent } from './gateway.js';
import { channelJSON } from './serialize.js';

export interface CommandPermissionChange {
  /** The command's name (a chat-input command unless `type` says otherwise). */
  command: string;
  type?: number;
  /** The server the overwrites apply in; defaults to the default guild. */
  guildId?: string;
  /** Replaces the command's overwrites in that server (at most 100). */
  permissions: CommandPermission[];
}

export class ServerAdmin extends WorldAdmin {
  /**
   * Registers commands as a bulk overwrite (PUT), globally or in one server, validated like Discord
   * does: pass `commands.map((c) => c.data.toJSON())`. Throws with Discord's form errors when refused.
   */
  registerCommands(json: unknown[], options: { guildId?: string } = {}): FakeCommand[] {
    const guildId = options.guildId ?? null;
    if (guildId !== null && !this.core.world.guilds.has(guildId)) throw new Error(`fake-discord: no guild ${guildId}`);
    try {
      return overwriteCommands(this.core, guildId, JSON.parse(JSON.stringify(json)) as Array<Record<string, unknown>>);
    } catch (error) {
      if (error instanceof ApiError) throw new Error(`fake-discord: Discord refuses these commands: ${JSON.stringify(error.body())}`, { cause: error });
      throw error;
    }
  }

  /**
   * An admin overrides who may use a command (role: type 1, user: 2, channel: 3; the guild id means
   * @everyone, guild id - 1 all channels). Sends APPLICATION_COMMAND_PERMISSIONS_UPDATE.
   */
  setCommandPermissions(change: CommandPermissionChange): void {
    const guildId = change.guildId ?? this.defaultGuildId();
    const type = change.type ?? 1;
    const command = [...this.core.commands.values()].find((c) => c.name === change.command && c.type === type
      && (c.guildId === guildId || c.guildId === null));
    if (!command) throw new Error(`fake-discord: no registered command ${change.command} for guild ${guildId}`);
    if (change.permissions.length > 100) throw new Error('fake-discord: at most 100 command permission overwrites');
    this.core.commandPermissions.set(`${guildId}:${command.id}`, change.permissions.map((p) => ({ ...p })));
    this.core.gateway?.dispatch('APPLICATION_COMMAND_PERMISSIONS_UPDATE', {
      id: command.id, application_id: this.core.settings.applicationId, guild_id: guildId, permissions: change.permissions,
    }, { guildId });
  }

  /** A moderator deletes a thread: THREAD_DELETE; the API then answers 10003 Unknown Channel for it. */
  deleteThread(threadId: string): FakeChannel {
    const thread = this.core.channel(threadId);
    if (!thread.thread) throw new Error(`fake-discord: ${threadId} is not a thread`);
    thread.deleted = true;
    this.core.dispatchThread('THREAD_DELETE', thread);
    return thread;
  }

  /** A moderator deletes a channel (not a thread): CHANNEL_DELETE; the API then answers 10003 Unknown Channel for it. */
  deleteChannel(channelId: string): FakeChannel {
    const channel = this.core.channel(channelId);
    if (channel.thread) throw new Error(`fake-discord: ${channelId} is a thread; use deleteThread`);
    channel.deleted = true;
    this.core.gateway?.dispatch('CHANNEL_DELETE', channelJSON(this.core.world, channel), { guildId: channel.guildId ?? undefined, intent: Intent.Guilds });
    return channel;
  }

  /** A moderator (or the author) deletes a message: MESSAGE_DELETE; later edits get 10008 Unknown Message. */
  deleteMessage(messageId: string): FakeMessage {
    const message = this.core.world.messages.get(messageId);
    if (!message || message.deleted) throw new Error(`fake-discord: no message ${messageId}`);
    this.core.remove(message);
    return message;
  }

  /** The DM channel between the bot and a user (created if needed); no gateway event, like Discord. */
  dmChannelWith(userId: string): FakeChannel {
    if (!this.core.world.users.has(userId)) throw new Error(`fake-discord: no user ${userId}`);
    return this.core.world.dmChannel(userId);
  }
}
