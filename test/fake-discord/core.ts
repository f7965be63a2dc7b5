/**
 * Shared machinery of the fake: the world, the event log, REST bookkeeping, and the message and
 * thread operations both REST routes and test helpers use (validate, store, echo over the gateway).
 */
import { performance } from 'node:perf_hooks';
import { errors, FormErrors } from './api-error.js';
import { dumpState } from './dump.js';
import { EventLog } from './events.js';
import { type Gateway, type GatewaySession, Intent } from './gateway.js';
import type { UploadedFile } from './http.js';
import { resolvePings } from './mentions.js';
import { Permission } from './permissions.js';
import {
  type FakeAttachment, type FakeChannel, type FakeCommand, type FakeEvent, type FakeInteraction, type FakeMessage,
  MessageFlag, type MessageSource, type RateLimitHit, type RestCall,
} from './records.js';
import { channelJSON, messageJSON } from './serialize.js';
import { assertNotEmpty, LIMITS, validateMessageBody } from './validation.js';
import type { FakeWorld } from './world.js';

type Json = Record<string, unknown>;

export { MessageFlag };

/** Flags a sender may set: suppress embeds/notifications, components v2; ephemeral only via interactions. */
function allowedFlags(flags: unknown, source: MessageSource): number {
  if (typeof flags !== 'number') return 0;
  const settable = (1 << 2) | (1 << 12) | (1 << 15) | (source === 'channel' ? 0 : MessageFlag.Ephemeral);
  return flags & settable;
}

export interface CoreSettings {
  token: string;
  applicationId: string;
  applicationFlags: number;
  ackDeadlineMs: number;
  tokenLifetimeMs: number;
  rateLimit: { mode: 'off' | 'record' | 'enforce'; limit: number; windowMs: number };
  echoBotMessages: boolean;
  /** Whether the app has the Message Content intent enabled in the developer portal (REST reads). */
  messageContentEnabled: boolean;
  attachmentSizeLimit: number;
  log: (line: string) => void;
}

export interface NewMessage {
  channel: FakeChannel;
  authorId: string;
  body: Json;
  files?: UploadedFile[];
  source: MessageSource;
  type?: number;
  interactionId?: string | null;
  /** Prefix for form error paths (`data` for interaction callbacks). */
  errorPath?: string[];
}

export class FakeCore {
  readonly events: EventLog;
  readonly interactions = new Map<string, FakeInteraction>();
  readonly restCalls: RestCall[] = [];
  readonly restCounts = new Map<string, number>();
  readonly rateLimitHits: RateLimitHit[] = [];
  readonly commands = new Map<string, FakeCommand>();
  readonly timers = new Set<NodeJS.Timeout>();
  readonly #sent = new Map<string, number[]>();
  gateway: Gateway | null = null;
  baseUrl = '';

  constructor(readonly world: FakeWorld, readonly settings: CoreSettings) {
    this.events = new EventLog(() => this.dump());
  }

  get botId(): string {
    return this.world.botId;
  }

  emit(event: FakeEvent): void {
    this.events.push(event);
  }

  recordRest(call: RestCall): void {
    this.restCalls.push(call);
    this.restCounts.set(call.route, (this.restCounts.get(call.route) ?? 0) + 1);
    this.emit({ kind: 'rest', call });
  }

  channel(id: string): FakeChannel {
    const channel = this.world.channels.get(id);
    if (!channel) throw errors.unknownChannel();
    return channel;
  }

  message(channelId: string, messageId: string): FakeMessage {
    const m = this.world.messages.get(messageId);
    if (!m || m.deleted || m.channelId !== channelId) throw errors.unknownMessage();
    return m;
  }

  /** Throws Missing Access without View Channel, Missing Permissions without any of `needed`. */
  requireBotPermissions(channel: FakeChannel, needed: bigint): void {
    const have = this.world.permissionsIn(channel.id, this.botId);
    if ((have & Permission.ViewChannel) === 0n) throw errors.missingAccess();
    if ((have & needed) !== needed) throw errors.missingPermissions();
  }

  botHas(channel: FakeChannel, permission: bigint): boolean {
    return (this.world.permissionsIn(channel.id, this.botId) & permission) === permission;
  }

  /** Bot sending into a thread: locked threads refuse, archived ones reopen (as Discord does). */
  prepareThreadForSend(channel: FakeChannel): void {
    const t = channel.thread;
    if (!t) return;
    const manage = this.botHas(channel, Permission.ManageThreads);
    if (t.locked && !manage) throw t.archived ? errors.archivedThread() : errors.threadLocked();
    if (t.archived) {
      t.archived = false;
      t.archiveTimestamp = new Date().toISOString();
      this.dispatchThread('THREAD_UPDATE', channel);
    }
  }

  /** Per-channel "5 messages / 5 s" model for bot-sent channel messages. */
  checkRateLimit(channelId: string): void {
    const { mode, limit, windowMs } = this.settings.rateLimit;
    if (mode === 'off') return;
    const now = performance.now();
    const recent = (this.#sent.get(channelId) ?? []).filter((t) => now - t < windowMs);
    this.#sent.set(channelId, recent);
    if (recent.length >= limit) {
      const enforced = mode === 'enforce';
      this.rateLimitHits.push({ channelId, at: now, enforced });
      if (enforced) throw errors.rateLimited(((recent[0] as number) + windowMs - now) / 1000);
    }
    recent.push(now);
  }

  /** Validates a message body and builds the record (not stored yet). */
  buildMessage(init: NewMessage): FakeMessage {
    const { channel, body } = init;
    const errs = new FormErrors();
    validateMessageBody(body, errs, init.errorPath ?? []);
    const files = init.files ?? [];
    if (files.length > LIMITS.attachments) {
      errs.add([...(init.errorPath ?? []), 'attachments'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.attachments} or fewer in length.`);
    }
    errs.throwIfAny();
    const attachments = this.uploads(channel.id, files, body.attachments);
    const content = typeof body.content === 'string' ? body.content : '';
    const embeds = Array.isArray(body.embeds) ? body.embeds : [];
    const components = Array.isArray(body.components) ? body.components : [];
    assertNotEmpty({ content, embeds, components, attachments, stickers: body.sticker_ids });
    const ref = body.message_reference as { message_id?: string; channel_id?: string } | undefined;
    const replied = ref?.message_id ? this.world.messages.get(ref.message_id) : undefined;
    return {
      id: this.world.nextId(), channelId: channel.id, guildId: channel.guildId, authorId: init.authorId,
      type: init.type ?? (replied ? 19 : 0), content, embeds, components, attachments,
      allowedMentions: body.allowed_mentions, pings: this.pings(channel, init.authorId, content, body.allowed_mentions, replied),
      flags: allowedFlags(body.flags, init.source), tts: body.tts === true,
      createdAt: Date.now(), editedAt: null, edits: [], deleted: false, source: init.source,
      interactionId: init.interactionId ?? null, threadId: null, reactions: [],
      reference: replied ? { messageId: replied.id, channelId: replied.channelId } : null,
    };
  }

  pings(channel: FakeChannel, authorId: string, content: string, allowed: unknown, replied?: FakeMessage): FakeMessage['pings'] {
    return resolvePings(content, allowed, {
      canMentionEveryone: (this.world.permissionsIn(channel.id, authorId) & Permission.MentionEveryone) !== 0n,
      roleMentionable: (id) => this.world.roles.get(id)?.mentionable ?? false,
      userExists: (id) => this.world.users.has(id),
      repliedUserId: replied?.authorId ?? null,
    });
  }

  uploads(channelId: string, files: UploadedFile[], declared: unknown): FakeAttachment[] {
    const meta = Array.isArray(declared) ? (declared as Json[]) : [];
    return files.map((f) => {
      if (f.size > this.settings.attachmentSizeLimit) throw errors.requestTooLarge();
      const m = meta.find((a) => String(a.id) === String(f.index));
      const id = this.world.nextId();
      const filename = typeof m?.filename === 'string' ? m.filename : f.filename;
      return {
        id, filename, size: f.size, contentType: f.contentType,
        description: typeof m?.description === 'string' ? m.description : null, data: f.data,
        url: `${this.baseUrl}/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`,
      };
    });
  }

  /** Stores a built message, echoes MESSAGE_CREATE (unless ephemeral) and records the event. */
  commit(message: FakeMessage): FakeMessage {
    this.world.storeMessage(message);
    const channel = this.world.channels.get(message.channelId);
    if (channel?.thread) channel.thread.memberIds.add(message.authorId);
    const fromBot = message.authorId === this.botId;
    if ((message.flags & MessageFlag.Ephemeral) === 0 && (!fromBot || this.settings.echoBotMessages)) {
      this.dispatchMessage('MESSAGE_CREATE', message);
    }
    this.emit({ kind: 'message', action: 'create', message });
    return message;
  }

  /** Applies an edit (content, embeds, components, attachments, flags), keeping the old version. */
  edit(message: FakeMessage, body: Json, files: UploadedFile[] = [], errorPath: string[] = []): FakeMessage {
    const errs = new FormErrors();
    validateMessageBody(body, errs, errorPath);
    errs.throwIfAny();
    message.edits.push({
      at: Date.now(), content: message.content, embeds: message.embeds, components: message.components,
      attachments: message.attachments.map(({ id, filename, size }) => ({ id, filename, size })), flags: message.flags,
    });
    const channel = this.channel(message.channelId);
    if ('content' in body) message.content = typeof body.content === 'string' ? body.content : '';
    if ('embeds' in body) message.embeds = Array.isArray(body.embeds) ? body.embeds : [];
    if ('components' in body) message.components = Array.isArray(body.components) ? body.components : [];
    const kept = Array.isArray(body.attachments)
      ? message.attachments.filter((a) => (body.attachments as Json[]).some((x) => String(x.id) === a.id))
      : message.attachments;
    message.attachments = [...kept, ...this.uploads(channel.id, files, body.attachments)];
    if ('allowed_mentions' in body) message.allowedMentions = body.allowed_mentions;
    message.pings = this.pings(channel, message.authorId, message.content, message.allowedMentions);
    message.flags &= ~MessageFlag.Loading;
    assertNotEmpty(message);
    message.editedAt = Date.now();
    this.announceUpdate(message);
    return message;
  }

  /** MESSAGE_UPDATE over the gateway (subject to the echo setting for bot messages) and the event log. */
  announceUpdate(message: FakeMessage): void {
    const fromBot = message.authorId === this.botId;
    if ((message.flags & MessageFlag.Ephemeral) === 0 && (!fromBot || this.settings.echoBotMessages)) {
      this.dispatchMessage('MESSAGE_UPDATE', message);
    }
    this.emit({ kind: 'message', action: 'update', message });
  }

  remove(message: FakeMessage): void {
    message.deleted = true;
    if ((message.flags & MessageFlag.Ephemeral) === 0) {
      this.gateway?.dispatch('MESSAGE_DELETE', { id: message.id, channel_id: message.channelId, guild_id: message.guildId },
        { guildId: message.guildId ?? undefined, intent: Intent.GuildMessages });
    }
    this.emit({ kind: 'message', action: 'delete', message });
  }

  /** Message JSON as the REST API returns it to this app. */
  messageOut(m: FakeMessage): Json {
    const hide = !this.settings.messageContentEnabled && !this.botCanRead(m);
    return messageJSON(this.world, m, { applicationId: this.settings.applicationId, interactions: this.interactions, hideContent: hide });
  }

  /** Without Message Content, the bot still reads its own messages and those that mention it. */
  botCanRead(m: FakeMessage): boolean {
    return m.authorId === this.botId || m.pings.users.includes(this.botId) || m.guildId === null;
  }

  dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', m: FakeMessage): void {
    const view = { applicationId: this.settings.applicationId, interactions: this.interactions, withMember: true };
    this.gateway?.dispatch(t, (s: GatewaySession) => messageJSON(this.world, m, {
      ...view, hideContent: (s.intents & Intent.MessageContent) === 0 && !this.botCanRead(m),
    }), { guildId: m.guildId ?? undefined, intent: Intent.GuildMessages });
  }

  dispatchThread(t: 'THREAD_CREATE' | 'THREAD_UPDATE', channel: FakeChannel, extra: Json = {}): void {
    this.gateway?.dispatch(t, { ...channelJSON(this.world, channel), ...extra }, { guildId: channel.guildId, intent: Intent.Guilds });
    this.emit({ kind: 'thread', action: t === 'THREAD_CREATE' ? 'create' : 'update', channel });
  }

  dispatchChannelUpdate(channel: FakeChannel): void {
    if (channel.thread) return this.dispatchThread('THREAD_UPDATE', channel);
    this.gateway?.dispatch('CHANNEL_UPDATE', channelJSON(this.world, channel), { guildId: channel.guildId, intent: Intent.Guilds });
  }

  /** A readable picture of the fake's state, for timeout errors. */
  dump(): string {
    return dumpState(this);
  }
}
