/**
 * More of what happens in a server's conversations, as test helpers: members opening forum posts and
 * editing their messages, moderators bulk-deleting, other bots, webhooks and Discord's own system
 * messages. Each goes through the rules of the Discord client (what a member may do) and reaches the
 * bot as the gateway events Discord sends.
 */
import { ApiError } from './api-error.js';
import { ActingUsers } from './acting.js';
import { systemMessage, type SystemMessageInput, webhookMessage, type WebhookMessageInput } from './automated-messages.js';
import { createPost, type CreatedPost } from './forum.js';
import { requireUserPermissions, userEdit, userForward } from './member-messages.js';
import { removeMessages } from './message-dispatch.js';
import { Permission } from './permissions.js';
import type { FakeChannel, FakeMessage, FakeUser, FakeWebhook } from './records.js';
import { isThreadOnly } from './world.js';

export interface ForumPostInput {
  forumId: string;
  /** Defaults to the default user (alice). */
  authorId?: string;
  /** The post's title: the thread's name (1–100 characters). */
  title: string;
  /** The first message's text. */
  content?: string;
  /** Tags by name or id, from the forum's `available_tags`. */
  tags?: string[];
  files?: Array<{ filename: string; data: Buffer | string; contentType?: string }>;
  autoArchiveDuration?: number;
  /**
   * The first message arrives this many ms after THREAD_CREATE (an upload in flight), as on Discord;
   * meanwhile reading it is 10008 and the bot's sends into the post are 40058. Default 0: at once.
   */
  starterDelayMs?: number;
}

export abstract class Conversations extends ActingUsers {
  /**
   * A member opens a post in a forum or media channel (needs View Channel and Send Messages there;
   * threads.mdx, Creating Threads in Forum and Media Channels): THREAD_CREATE (`newly_created`, type 11,
   * `parent_id` the forum, `owner_id` the member, `applied_tags`), then the MESSAGE_CREATE of the first
   * message, whose id is the thread's. Await `posted` when using `starterDelayMs`.
   */
  createForumPost(input: ForumPostInput): CreatedPost {
    const forum = this.core.channel(input.forumId);
    if (!isThreadOnly(forum) || forum.guildId === null) throw new Error(`fake-discord: ${forum.id} is not a forum or media channel`);
    const authorId = input.authorId ?? this.defaults.userId;
    requireUserPermissions(this.core, forum, authorId, Permission.SendMessages | (input.files?.length ? Permission.AttachFiles : 0n), 'post');
    const tags = (input.tags ?? []).map((t) => {
      const tag = forum.forum?.availableTags.find((x) => x.id === t || x.name === t);
      if (!tag) throw new Error(`fake-discord: #${forum.name} has no tag ${t}`);
      return tag.id;
    });
    const files = (input.files ?? []).map((f, index) => {
      const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
      return { field: `files[${index}]`, index, filename: f.filename, size: data.length, contentType: f.contentType ?? null, data };
    });
    try {
      return createPost(this.core, {
        forum: forum as FakeChannel & { guildId: string }, authorId, files, source: 'user', starterDelayMs: input.starterDelayMs,
        body: { name: input.title, applied_tags: tags, auto_archive_duration: input.autoArchiveDuration, message: { content: input.content ?? '' } },
      });
    } catch (error) {
      if (error instanceof ApiError) throw new Error(`fake-discord: the Discord client refuses this post: ${JSON.stringify(error.body())}`, { cause: error });
      throw error;
    }
  }

  /** The author edits their message: MESSAGE_UPDATE with the new content and `edited_timestamp`. */
  editUserMessage(messageId: string, content: string): FakeMessage {
    const message = this.core.world.messages.get(messageId);
    if (!message) throw new Error(`fake-discord: no message ${messageId}`);
    return userEdit(this.core, message, content);
  }

  /**
   * A member forwards a message into a channel they may write in: an empty message with a type-1
   * `message_reference` to the original and its `message_snapshots` (what it said then). The original's
   * channel may be one the bot or other members cannot view.
   */
  forwardMessage(input: { messageId: string; channelId?: string; userId?: string }): FakeMessage {
    return userForward(this.core, {
      messageId: input.messageId, channelId: input.channelId ?? this.defaults.channelId, userId: input.userId ?? this.defaults.userId,
    });
  }

  /** A moderator deletes several messages of one channel at once: one MESSAGE_DELETE_BULK with their ids. */
  deleteMessages(messageIds: string[]): FakeMessage[] {
    const messages = messageIds.map((id) => {
      const m = this.core.world.messages.get(id);
      if (!m || m.deleted) throw new Error(`fake-discord: no message ${id}`);
      return m;
    });
    if (new Set(messages.map((m) => m.channelId)).size > 1) throw new Error('fake-discord: a bulk delete is within one channel');
    removeMessages(this.core, messages);
    return messages;
  }

  /** Another bot in the server (`author.bot: true` on its messages); it writes with `sendMessage({ userId })`. */
  addBotUser(init: { username: string; guildId?: string; roleIds?: string[] }): FakeUser {
    const user = this.core.world.addUser({ username: init.username, bot: true });
    this.addMember({ guildId: init.guildId ?? this.defaultGuildId(), userId: user.id, roleIds: init.roleIds });
    return user;
  }

  /** An incoming webhook a server admin made on a channel (its messages carry `webhook_id`). */
  addWebhook(init: { channelId?: string; name: string }): FakeWebhook {
    const channel = this.core.channel(init.channelId ?? this.defaults.channelId);
    if (channel.guildId === null || channel.thread) throw new Error('fake-discord: webhooks belong to server channels, not threads or DMs');
    const id = this.core.world.nextId();
    const hook: FakeWebhook = { id, token: `fake-webhook-token.${id}`, name: init.name, channelId: channel.id, guildId: channel.guildId };
    this.core.world.webhooks.set(id, hook);
    return hook;
  }

  /** A webhook posts (Execute Webhook): author = the webhook, `webhook_id`, no `member`, user mentions only by default. */
  sendWebhookMessage(input: WebhookMessageInput): FakeMessage {
    return webhookMessage(this.core, input);
  }

  /** Discord posts a system message: 7 a member joined, 18 a thread was created, 6 a message was pinned, … */
  sendSystemMessage(input: SystemMessageInput): FakeMessage {
    return systemMessage(this.core, input, { channelId: this.defaults.channelId, userId: this.defaults.userId });
  }
}
