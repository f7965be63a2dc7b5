/**
 * Creating and editing messages by Discord's rules (docs/resources/message.mdx): body limits, replies
 * (the referenced message must exist unless `fail_if_not_exists` is false), who gets pinged, and
 * mentions rebuilt from scratch when an edit changes the content, with default allowances unless the
 * edit says otherwise.
 */
import { performance } from 'node:perf_hooks';
import { errors, FormErrors } from './api-error.js';
import type { FakeCore, NewMessage } from './core.js';
import type { UploadedFile } from './http.js';
import { resolvePings, type MentionSource } from './mentions.js';
import { Permission } from './permissions.js';
import { type FakeChannel, type FakeMessage, MessageFlag, MessageKind, type MessageSource } from './records.js';
import { assertNotEmpty, LIMITS, validateMessageBody } from './validation.js';

type Json = Record<string, unknown>;

/** Flags a sender may set: suppress embeds/notifications, components v2; ephemeral only via interactions. */
function allowedFlags(flags: unknown, source: MessageSource): number {
  if (typeof flags !== 'number') return 0;
  const viaInteraction = source === 'interaction-response' || source === 'followup';
  const settable = (1 << 2) | (1 << 12) | (1 << 15) | (viaInteraction ? MessageFlag.Ephemeral : 0);
  return flags & settable;
}

/** Interaction responses and follow-ups are webhooks: their mention defaults differ from a channel send. */
export function mentionSourceOf(source: MessageSource): MentionSource {
  return source === 'interaction-response' || source === 'followup' || source === 'webhook' ? 'webhook' : 'message';
}

/** The message being replied to, or undefined to send a plain message; throws when Discord refuses the reply. */
function replyTarget(core: FakeCore, channel: FakeChannel, body: Json, source: MessageSource): FakeMessage | undefined {
  // Interaction callback data has no message_reference (receiving-and-responding.mdx, callback data).
  if (source !== 'channel' && source !== 'user') return undefined;
  const ref = body.message_reference as { message_id?: unknown; channel_id?: unknown; fail_if_not_exists?: unknown } | undefined;
  if (!ref || typeof ref !== 'object' || ref.message_id === undefined) return undefined;
  const target = core.world.messages.get(String(ref.message_id));
  const sameChannel = ref.channel_id === undefined || String(ref.channel_id) === channel.id;
  if (target && !target.deleted && target.channelId === channel.id && sameChannel) return target;
  // message.mdx, Message Reference Structure: fail_if_not_exists defaults to true.
  if (ref.fail_if_not_exists === false) return undefined;
  throw errors.unknownReference();
}

/** Validates a message body and builds the record (not stored yet). */
export function buildMessage(core: FakeCore, init: NewMessage): FakeMessage {
  const { channel, body } = init;
  const errs = new FormErrors();
  validateMessageBody(body, errs, init.errorPath ?? []);
  const files = init.files ?? [];
  if (files.length > LIMITS.attachments) {
    errs.add([...(init.errorPath ?? []), 'attachments'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.attachments} or fewer in length.`);
  }
  errs.throwIfAny();
  const replied = replyTarget(core, channel, body, init.source);
  const attachments = core.uploads(channel.id, files, body.attachments);
  const content = typeof body.content === 'string' ? body.content : '';
  const embeds = Array.isArray(body.embeds) ? body.embeds : [];
  const components = Array.isArray(body.components) ? body.components : [];
  // System messages (a member joined, a thread was created) are Discord's own and may be empty.
  if (init.source !== 'system' && !init.snapshot) assertNotEmpty({ content, embeds, components, attachments, stickers: body.sticker_ids });
  return {
    id: core.world.nextId(), channelId: channel.id, guildId: channel.guildId, authorId: init.authorId,
    type: init.type ?? (replied ? MessageKind.Reply : MessageKind.Default), content, embeds, components, attachments,
    allowedMentions: body.allowed_mentions,
    pings: pingsFor(core, channel, init.authorId, content, body.allowed_mentions, mentionSourceOf(init.source), replied),
    flags: allowedFlags(body.flags, init.source), tts: body.tts === true,
    createdAt: Date.now(), createdAtMs: performance.now(), editedAt: null, edits: [], deleted: false, source: init.source,
    interactionId: init.interactionId ?? null, threadId: null, reactions: [],
    reference: init.reference ?? (replied ? { messageId: replied.id, channelId: replied.channelId, guildId: replied.guildId } : null),
    ...(init.webhook ? { webhook: init.webhook } : {}),
    ...(init.counted === false ? { counted: false } : {}),
    ...(init.snapshot ? { snapshot: init.snapshot } : {}),
  };
}

export function pingsFor(
  core: FakeCore, channel: FakeChannel, authorId: string, content: string, allowed: unknown, source: MentionSource, replied?: FakeMessage,
): FakeMessage['pings'] {
  return resolvePings(content, allowed, {
    canMentionEveryone: (core.world.permissionsIn(channel.id, authorId) & Permission.MentionEveryone) !== 0n,
    roleMentionable: (id) => core.world.roles.get(id)?.mentionable ?? false,
    userExists: (id) => core.world.users.has(id),
    // A reply to a webhook's message pings no one: the webhook is not a user (seriaati/embed-fixer #82).
    // An app's interaction responses can be reply-pinged since discord-api-docs #5395 was fixed.
    repliedUserId: replied && !replied.webhook ? replied.authorId : null,
    source,
  });
}

export interface EditOptions {
  files?: UploadedFile[];
  /** Prefix for form error paths (`data` for interaction callbacks). */
  errorPath?: string[];
  /** Through the channel route or an interaction webhook: decides the default mention allowances. */
  via: MentionSource;
}

/** Applies an edit (content, embeds, components, attachments, flags), keeping the old version. */
export function editMessage(core: FakeCore, message: FakeMessage, body: Json, options: EditOptions): FakeMessage {
  const errs = new FormErrors();
  validateMessageBody(body, errs, options.errorPath ?? []);
  errs.throwIfAny();
  const channel = core.channel(message.channelId);
  const kept = Array.isArray(body.attachments)
    ? message.attachments.filter((a) => (body.attachments as Json[]).some((x) => String(x.id) === a.id))
    : message.attachments;
  const next = {
    content: 'content' in body ? (typeof body.content === 'string' ? body.content : '') : message.content,
    embeds: 'embeds' in body ? (Array.isArray(body.embeds) ? body.embeds : []) : message.embeds,
    components: 'components' in body ? (Array.isArray(body.components) ? body.components : []) : message.components,
    attachments: [...kept, ...core.uploads(channel.id, options.files ?? [], body.attachments)],
  };
  // Checked before anything changes, so a refused edit leaves the message as it was.
  assertNotEmpty(next);
  message.edits.push({
    at: Date.now(), atMs: performance.now(), content: message.content, embeds: message.embeds, components: message.components,
    attachments: message.attachments.map(({ id, filename, size }) => ({ id, filename, size })), flags: message.flags,
  });
  Object.assign(message, next);
  if ('content' in body || 'allowed_mentions' in body) {
    // message.mdx, Edit Message: mentions are rebuilt from the new content; without an explicit
    // allowed_mentions "the content will be parsed with default allowances", not the original's.
    message.allowedMentions = body.allowed_mentions;
    const replied = message.reference?.messageId ? core.world.messages.get(message.reference.messageId) : undefined;
    message.pings = pingsFor(core, channel, message.authorId, message.content, body.allowed_mentions, options.via, replied);
  }
  message.flags &= ~MessageFlag.Loading;
  message.editedAt = Date.now();
  core.announceUpdate(message);
  return message;
}
