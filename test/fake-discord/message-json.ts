/**
 * Message records → message objects as Discord sends them (message.mdx, Message Object;
 * gateway-events.mdx, Message Create): the author (a user, or the webhook for webhook messages, with
 * no `member` then), mentions with their partial members, the reference, and for replies and thread
 * starters the referenced message **one level deep** (`null` once it was deleted).
 */
import type { FakeCdn } from './cdn.js';
import { channelJSON } from './channel-json.js';
import { type FakeInteraction, type FakeMessage, MessageKind, type MessageSnapshot } from './records.js';
import { attachmentJSON, memberJSON, userJSON } from './serialize.js';
import type { FakeWorld } from './world.js';

type Json = Record<string, unknown>;

export interface MessageView {
  applicationId: string;
  /** Hide content, embeds, attachments and components (no Message Content access). */
  hideContent?: boolean;
  /** Whether the referenced message's content is hidden too; without it, it is shown. */
  hides?: (m: FakeMessage) => boolean;
  /** Include `member` objects (gateway events in guilds). */
  withMember?: boolean;
  /** Lets messages sent through an interaction carry `interaction_metadata`. */
  interactions?: ReadonlyMap<string, FakeInteraction>;
  /** Signs attachment URLs afresh. */
  cdn?: FakeCdn;
}

/**
 * message.mdx, Message Structure note 4: `referenced_message` is returned for types 19 (REPLY), 21
 * (THREAD_STARTER_MESSAGE) and 23; "if the field exists but is null, the referenced message was deleted".
 */
const RESOLVES_REFERENCE: number[] = [MessageKind.Reply, MessageKind.ThreadStarterMessage, 23];

export function messageJSON(world: FakeWorld, m: FakeMessage, view: MessageView): Json {
  const member = m.guildId && !m.webhook ? world.member(m.guildId, m.authorId) : undefined;
  const hide = view.hideContent === true;
  const thread = m.threadId ? world.channels.get(m.threadId) : undefined;
  const viaInteraction = m.source === 'interaction-response' || m.source === 'followup';
  const source = m.interactionId ? view.interactions?.get(m.interactionId) : undefined;
  const interaction = viaInteraction && source ? interactionMeta(world, m, source) : undefined;
  const ref = m.reference;
  return {
    id: m.id, channel_id: m.channelId, ...(m.guildId ? { guild_id: m.guildId } : {}),
    author: authorJSON(world, m),
    // gateway-events.mdx, Message Create: `member` is "missing for ephemeral messages and messages from webhooks".
    ...(view.withMember && member && !viaInteraction ? { member: memberJSON(world, member, false) } : {}),
    content: hide ? '' : m.content,
    timestamp: new Date(m.createdAt).toISOString(),
    edited_timestamp: m.editedAt === null ? null : new Date(m.editedAt).toISOString(),
    tts: m.tts, mention_everyone: m.pings.everyone,
    mentions: m.pings.users.flatMap((id) => {
      const u = world.users.get(id);
      const mm = m.guildId ? world.member(m.guildId, id) : undefined;
      return u ? [{ ...userJSON(u), ...(mm && view.withMember ? { member: memberJSON(world, mm, false) } : {}) }] : [];
    }),
    mention_roles: [...m.pings.roles],
    attachments: hide ? [] : m.attachments.map((a) => attachmentJSON(a, view.cdn)),
    embeds: hide ? [] : m.embeds, components: hide ? [] : m.components,
    pinned: false, type: m.type, flags: m.flags,
    ...(m.reactions.length ? { reactions: reactionsJSON(m.reactions) } : {}),
    ...(viaInteraction ? { webhook_id: view.applicationId, application_id: view.applicationId } : {}),
    ...(m.webhook ? { webhook_id: m.webhook.id } : {}),
    ...(interaction ?? {}),
    ...(ref ? {
      message_reference: {
        type: ref.type ?? 0, ...(ref.messageId ? { message_id: ref.messageId } : {}), channel_id: ref.channelId,
        ...(ref.guildId ? { guild_id: ref.guildId } : {}),
      },
    } : {}),
    ...(ref?.messageId && RESOLVES_REFERENCE.includes(m.type) ? { referenced_message: referencedJSON(world, ref.messageId, view) } : {}),
    ...(m.snapshot ? { message_snapshots: [{ message: snapshotJSON(world, m.snapshot, hide, view) }] } : {}),
    ...(thread ? { thread: channelJSON(world, thread) } : {}),
  };
}

/** message.mdx, Message Snapshot Object: "type, content, embeds, attachments, timestamp, edited_timestamp, flags, mentions, mention_roles, stickers, sticker_items, and components". */
function snapshotJSON(world: FakeWorld, s: MessageSnapshot, hide: boolean, view: MessageView): Json {
  return {
    type: s.type, content: hide ? '' : s.content, embeds: hide ? [] : s.embeds,
    attachments: hide ? [] : s.attachments.map((a) => attachmentJSON(a, view.cdn)), components: hide ? [] : s.components,
    timestamp: new Date(s.createdAt).toISOString(), edited_timestamp: s.editedAt === null ? null : new Date(s.editedAt).toISOString(),
    flags: s.flags, mentions: s.pings.users.flatMap((id) => {
      const u = world.users.get(id);
      return u ? [userJSON(u)] : [];
    }),
    mention_roles: [...s.pings.roles], sticker_items: [],
  };
}

/** The message replied to, without its own `referenced_message` (one level deep), or null once deleted. */
function referencedJSON(world: FakeWorld, id: string, view: MessageView): Json | null {
  const target = world.messages.get(id);
  if (!target || target.deleted) return null;
  const nested = messageJSON(world, target, { ...view, withMember: false, hideContent: view.hides?.(target) ?? false });
  delete nested.referenced_message;
  return nested;
}

/**
 * message.mdx, note 1: for a webhook message "the author object corresponds to the webhook's id,
 * username, and avatar"; webhook authors are flagged as bots with the legacy discriminator.
 */
function authorJSON(world: FakeWorld, m: FakeMessage): Json {
  if (m.webhook) {
    return {
      id: m.webhook.id, username: m.webhook.username, avatar: null, discriminator: '0000', public_flags: 0, flags: 0,
      bot: true, global_name: null,
    };
  }
  const author = world.users.get(m.authorId);
  return author ? userJSON(author) : { id: m.authorId, username: 'unknown', discriminator: '0' };
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
