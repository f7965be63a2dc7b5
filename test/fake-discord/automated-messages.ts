/**
 * Messages no member typed: a webhook's (author = the webhook, `webhook_id` set, no `member`; only
 * user mentions parsed by default: message.mdx, Allowed Mentions Object), Discord's system messages
 * (message.mdx, Message Types and Message Reference Content Attribution) and the THREAD_STARTER_MESSAGE
 * stub at the top of a thread started from a message.
 */
import type { FakeCore } from './core.js';
import { type FakeChannel, type FakeMessage, MessageKind } from './records.js';
import { isThreadOnly } from './world.js';

export interface WebhookMessageInput {
  webhookId: string;
  content?: string;
  embeds?: unknown[];
  /** The name to post under (`username` of Execute Webhook); default the webhook's name. */
  username?: string;
  /** Post inside this thread of the webhook's channel (`thread_id`); required for a forum's webhook. */
  threadId?: string;
  allowedMentions?: unknown;
}

export function webhookMessage(core: FakeCore, input: WebhookMessageInput): FakeMessage {
  const hook = core.world.webhooks.get(input.webhookId);
  if (!hook) throw new Error(`fake-discord: no webhook ${input.webhookId}`);
  const home = core.channel(hook.channelId);
  const channel = input.threadId ? core.channel(input.threadId) : home;
  if (input.threadId && channel.parentId !== home.id) throw new Error(`fake-discord: ${input.threadId} is not a thread of the webhook's channel`);
  // opcodes-and-status-codes.mdx 220001: "Webhooks posted to forum channels must have a thread_name or thread_id".
  if (isThreadOnly(channel)) throw new Error('fake-discord: a forum webhook posts into a post: pass threadId');
  const message = core.buildMessage({
    channel, authorId: hook.id, source: 'webhook', webhook: { id: hook.id, username: input.username ?? hook.name },
    body: {
      ...(input.content === undefined ? {} : { content: input.content }), ...(input.embeds ? { embeds: input.embeds } : {}),
      ...(input.allowedMentions === undefined ? {} : { allowed_mentions: input.allowedMentions }),
    },
  });
  return core.commit(message);
}

export interface SystemMessageInput {
  /** 7 USER_JOIN, 18 THREAD_CREATED, 6 CHANNEL_PINNED_MESSAGE, or another system type. */
  type: number;
  /** Where it appears; for 18 the thread's parent, for 6 the pinned message's channel. Default #general. */
  channelId?: string;
  /** Whose action it records (who joined, pinned, created the thread); default the thread's owner or alice. */
  userId?: string;
  /** For 18: the thread created. */
  threadId?: string;
  /** For 6: the message pinned. */
  messageId?: string;
}

/**
 * A system message: 7 (a member joined; no content), 18 (a thread was created: content is its name and
 * `message_reference` points at the thread, channel only), 6 (a pin: it references the message).
 */
export function systemMessage(core: FakeCore, input: SystemMessageInput, defaults: { channelId: string; userId: string }): FakeMessage {
  let channel = core.channel(input.channelId ?? defaults.channelId);
  let content = '';
  let reference: FakeMessage['reference'] = null;
  let authorId = input.userId ?? defaults.userId;
  if (input.type === MessageKind.ThreadCreated) {
    const thread = input.threadId ? core.channel(input.threadId) : undefined;
    if (!thread?.thread || !thread.parentId) throw new Error('fake-discord: a THREAD_CREATED message needs the threadId of a thread');
    channel = core.channel(thread.parentId);
    content = thread.name;
    authorId = input.userId ?? thread.thread.ownerId;
    reference = { messageId: null, channelId: thread.id, guildId: thread.guildId };
  } else if (input.type === MessageKind.ChannelPinnedMessage) {
    const pinned = input.messageId ? core.world.messages.get(input.messageId) : undefined;
    if (!pinned) throw new Error('fake-discord: a pin message needs the messageId of the pinned message');
    channel = core.channel(pinned.channelId);
    reference = { messageId: pinned.id, channelId: pinned.channelId, guildId: pinned.guildId };
  }
  const message = core.buildMessage({ channel, authorId, source: 'system', type: input.type, body: { content }, reference });
  message.pings = { everyone: false, users: [], roles: [] };
  return core.commit(message);
}

/**
 * threads.mdx, New Message Types: THREAD_STARTER_MESSAGE "is a new message sent as the first message in
 * threads that are started from an existing message"; it has no content, only the reference to the
 * message the thread started from (resolved as `referenced_message`). The docs do not say it is
 * dispatched, so it is only in the thread's history (REST reads), and `message_count` leaves it out.
 */
export function addThreadStarter(core: FakeCore, thread: FakeChannel, from: FakeMessage): FakeMessage {
  const stub = core.buildMessage({
    channel: thread, authorId: thread.thread?.ownerId ?? from.authorId, source: 'system', type: MessageKind.ThreadStarterMessage,
    body: { content: '' }, reference: { messageId: from.id, channelId: from.channelId, guildId: from.guildId }, counted: false,
  });
  stub.pings = { everyone: false, users: [], roles: [] };
  core.world.storeMessage(stub);
  return stub;
}
