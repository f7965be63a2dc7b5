/**
 * Shared machinery of the fake: the world, the event log, REST bookkeeping, and the message and
 * thread operations both REST routes and test helpers use (validate, store, echo over the gateway).
 */
import { errors } from './api-error.js';
import { FakeCdn } from './cdn.js';
import { dumpState } from './dump.js';
import { EventLog } from './events.js';
import { type Gateway, Intent } from './gateway.js';
import type { UploadedFile } from './http.js';
import { buildMessage, editMessage, type EditOptions } from './message-ops.js';
import { Permission } from './permissions.js';
import { ChannelRateLimiter, type RateLimitSettings } from './rate-limit.js';
import { GlobalRateLimiter, type GlobalRateLimitSettings } from './global-rate-limit.js';
import {
  type CommandPermission, type FakeAttachment, type FakeChannel, type FakeCommand, type FakeEvent, type FakeInteraction,
  type FakeMessage, MessageFlag, type MessageSource, type RestCall,
} from './records.js';
import { botCanRead, dispatchMessage, removeMessages, restMessageJSON } from './message-dispatch.js';
import { channelJSON } from './serialize.js';
import type { FakeWorld } from './world.js';

type Json = Record<string, unknown>;

export { MessageFlag };

export interface CoreSettings {
  token: string;
  applicationId: string;
  applicationFlags: number;
  ackDeadlineMs: number;
  tokenLifetimeMs: number;
  rateLimit: RateLimitSettings;
  globalRateLimit: GlobalRateLimitSettings;
  echoBotMessages: boolean;
  /** Whether the app has the Message Content intent enabled in the developer portal (REST reads). */
  messageContentEnabled: boolean;
  attachmentSizeLimit: number;
  /** How long a signed attachment URL stays valid. */
  attachmentUrlLifetimeMs: number;
  /** Wall clock for signed URLs. */
  now: () => number;
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
  /** A reference set by Discord itself (thread notices and starters), not a reply the sender asked for. */
  reference?: FakeMessage['reference'];
  /** For webhook messages: the webhook and the name it posts under. */
  webhook?: { id: string; username: string };
  /** False for first messages a thread's message_count leaves out. */
  counted?: boolean;
  /** A forward: the message's snapshot (it has no content of its own). */
  snapshot?: FakeMessage['snapshot'];
}

export class FakeCore {
  readonly events: EventLog;
  readonly interactions = new Map<string, FakeInteraction>();
  readonly restCalls: RestCall[] = [];
  readonly restCounts = new Map<string, number>();
  readonly commands = new Map<string, FakeCommand>();
  /** Command permission overwrites by `${guildId}:${commandId}`, as a server admin set them. */
  readonly commandPermissions = new Map<string, CommandPermission[]>();
  /** Every uploaded file by id (message attachments and ephemeral command uploads). */
  readonly attachments = new Map<string, FakeAttachment>();
  readonly timers = new Set<NodeJS.Timeout>();
  readonly rateLimiter: ChannelRateLimiter;
  readonly globalLimiter: GlobalRateLimiter;
  readonly cdn: FakeCdn;
  gateway: Gateway | null = null;
  baseUrl = '';

  constructor(readonly world: FakeWorld, readonly settings: CoreSettings) {
    this.events = new EventLog(() => this.dump());
    this.rateLimiter = new ChannelRateLimiter(settings.rateLimit);
    this.globalLimiter = new GlobalRateLimiter(settings.globalRateLimit);
    this.cdn = new FakeCdn({ urlLifetimeMs: settings.attachmentUrlLifetimeMs, now: settings.now, find: (id) => this.attachments.get(id) });
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

  /** A channel the API can reach; a deleted one answers 10003 Unknown Channel like any unknown id. */
  channel(id: string): FakeChannel {
    const channel = this.world.channels.get(id);
    if (!channel || channel.deleted) throw errors.unknownChannel();
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
    if (t.awaitingStarter) throw errors.postNotStarted();
    if (t.archived) {
      t.archived = false;
      t.archiveTimestamp = new Date().toISOString();
      this.dispatchThread('THREAD_UPDATE', channel);
    }
  }

  /**
   * Editing a message or reacting in a thread (threads.md): archived threads refuse both (50083);
   * locked ones refuse edits unless the bot has Manage Threads (160005).
   */
  requireActiveThread(channel: FakeChannel, action: 'edit' | 'react'): void {
    const t = channel.thread;
    if (!t) return;
    if (t.archived) throw errors.archivedThread();
    if (action === 'edit' && t.locked && !this.botHas(channel, Permission.ManageThreads)) throw errors.threadLocked();
  }

  /** Validates a message body and builds the record (not stored yet). */
  buildMessage(init: NewMessage): FakeMessage {
    return buildMessage(this, init);
  }

  /** Stores an upload and serves it on the CDN at a signed URL. */
  storeUpload(channelId: string, file: { filename: string; data: Buffer; contentType: string | null; description?: string | null }, ephemeral = false): FakeAttachment {
    const id = this.world.nextId();
    const path = ephemeral
      ? FakeCdn.pathFor(channelId, id, file.filename).replace('/attachments/', '/ephemeral-attachments/')
      : FakeCdn.pathFor(channelId, id, file.filename);
    const attachment: FakeAttachment = {
      id, filename: file.filename, size: file.data.length, contentType: file.contentType, description: file.description ?? null,
      data: file.data, path, url: this.cdn.sign(path), ...(ephemeral ? { ephemeral: true } : {}),
    };
    this.attachments.set(id, attachment);
    return attachment;
  }

  uploads(channelId: string, files: UploadedFile[], declared: unknown): FakeAttachment[] {
    const meta = Array.isArray(declared) ? (declared as Json[]) : [];
    if (files.some((f) => f.size > this.settings.attachmentSizeLimit)) throw errors.requestTooLarge();
    return files.map((f) => {
      const m = meta.find((a) => String(a.id) === String(f.index));
      return this.storeUpload(channelId, {
        filename: typeof m?.filename === 'string' ? m.filename : f.filename, data: f.data, contentType: f.contentType,
        description: typeof m?.description === 'string' ? m.description : null,
      });
    });
  }

  /**
   * Stores a built message, echoes MESSAGE_CREATE (unless ephemeral, or `dispatch` is false for the
   * thread starters Discord only shows in history) and records the event.
   */
  commit(message: FakeMessage, options: { dispatch?: boolean } = {}): FakeMessage {
    this.world.storeMessage(message);
    const channel = this.world.channels.get(message.channelId);
    if (channel?.thread && !message.webhook && message.source !== 'system') channel.thread.memberIds.add(message.authorId);
    const fromBot = message.authorId === this.botId;
    if (options.dispatch !== false && (message.flags & MessageFlag.Ephemeral) === 0 && (!fromBot || this.settings.echoBotMessages)) {
      this.dispatchMessage('MESSAGE_CREATE', message);
    }
    this.emit({ kind: 'message', action: 'create', message });
    return message;
  }

  /** Applies an edit, keeping the old version (see message-ops.ts). */
  edit(message: FakeMessage, body: Json, options: EditOptions): FakeMessage {
    return editMessage(this, message, body, options);
  }

  /** MESSAGE_UPDATE over the gateway (subject to the echo setting for bot messages) and the event log. */
  announceUpdate(message: FakeMessage): void {
    const fromBot = message.authorId === this.botId;
    if ((message.flags & MessageFlag.Ephemeral) === 0 && (!fromBot || this.settings.echoBotMessages)) {
      this.dispatchMessage('MESSAGE_UPDATE', message);
    }
    this.emit({ kind: 'message', action: 'update', message });
  }

  /** Marks a message deleted and sends MESSAGE_DELETE (not for ephemeral messages, which no one else saw). */
  remove(message: FakeMessage): void {
    removeMessages(this, [message]);
  }

  /** Message JSON as the REST API returns it to this app (attachment URLs freshly signed). */
  messageOut(m: FakeMessage): Json {
    return restMessageJSON(this, m);
  }

  /** Without Message Content, the bot still reads its own messages, DMs and messages that mention it. */
  botCanRead(m: FakeMessage): boolean {
    return botCanRead(this, m);
  }

  /** Guild messages need GUILD_MESSAGES, DMs DIRECT_MESSAGES (gateway.mdx, List of Intents). */
  dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', m: FakeMessage): void {
    dispatchMessage(this, t, m);
  }

  dispatchThread(t: 'THREAD_CREATE' | 'THREAD_UPDATE' | 'THREAD_DELETE', channel: FakeChannel, extra: Json = {}): void {
    // THREAD_DELETE carries only id, guild_id, parent_id and type (gateway-events.mdx, Thread Delete).
    const d = t === 'THREAD_DELETE'
      ? { id: channel.id, guild_id: channel.guildId, parent_id: channel.parentId, type: channel.type }
      : { ...channelJSON(this.world, channel), ...extra };
    this.gateway?.dispatch(t, d, { guildId: channel.guildId ?? undefined, intent: Intent.Guilds });
    const action = t === 'THREAD_CREATE' ? 'create' : t === 'THREAD_UPDATE' ? 'update' : 'delete';
    this.emit({ kind: 'thread', action, channel });
  }

  dispatchChannelUpdate(channel: FakeChannel): void {
    if (channel.thread) return this.dispatchThread('THREAD_UPDATE', channel);
    this.gateway?.dispatch('CHANNEL_UPDATE', channelJSON(this.world, channel), { guildId: channel.guildId ?? undefined, intent: Intent.Guilds });
  }

  /** A readable picture of the fake's state, for timeout errors. */
  dump(): string {
    return dumpState(this);
  }
}
