/**
 * Channels and threads: fetch and modify channels, start threads from a message or on their own,
 * join threads, typing. Thread rules follow Discord: names of 1–100 characters, one thread per
 * message (the thread takes the message's id), Create Public Threads to start one, Manage Threads to
 * lock, only the owner or a moderator may rename or archive.
 */
import { performance } from 'node:perf_hooks';
import { errors, FormErrors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { json, noContent, type RouteDef } from '../http.js';
import { Permission } from '../permissions.js';
import { ChannelKind, type FakeChannel } from '../records.js';
import { addThreadStarter } from '../automated-messages.js';
import { ARCHIVE_DURATIONS } from '../forum.js';
import { channelJSON } from '../serialize.js';
import { validateThreadName } from '../validation.js';
import { isThreadOnly } from '../world.js';
import { appliedTagsFor, forumPost } from './forum.js';

type Json = Record<string, unknown>;

const TEXT_TYPES: number[] = [ChannelKind.GuildText, ChannelKind.GuildAnnouncement];

export function channelRoutes(core: FakeCore): RouteDef[] {
  const startThread = (parent: FakeChannel, body: Json, starterMessageId: string | null): FakeChannel => {
    if (!TEXT_TYPES.includes(parent.type)) throw errors.wrongChannelType();
    const errs = new FormErrors();
    validateThreadName(body.name, errs, true);
    if (body.auto_archive_duration !== undefined && !ARCHIVE_DURATIONS.includes(Number(body.auto_archive_duration))) {
      errs.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', `Value must be one of (${ARCHIVE_DURATIONS.join(', ')}).`);
    }
    errs.throwIfAny();
    const type = starterMessageId
      ? (parent.type === ChannelKind.GuildAnnouncement ? ChannelKind.AnnouncementThread : ChannelKind.PublicThread)
      : Number(body.type ?? ChannelKind.PrivateThread);
    const needed = type === ChannelKind.PrivateThread ? Permission.CreatePrivateThreads : Permission.CreatePublicThreads;
    core.requireBotPermissions(parent, needed | (starterMessageId ? Permission.ReadMessageHistory : 0n));
    const thread = core.world.addThread(parent as FakeChannel & { guildId: string }, {
      name: body.name as string, type, ownerId: core.botId, starterMessageId,
      autoArchiveDuration: body.auto_archive_duration ? Number(body.auto_archive_duration) : undefined,
    });
    if (typeof body.rate_limit_per_user === 'number') thread.rateLimitPerUser = body.rate_limit_per_user;
    if (type === ChannelKind.PrivateThread && body.invitable === false && thread.thread) thread.thread.invitable = false;
    core.dispatchThread('THREAD_CREATE', thread, { newly_created: true });
    return thread;
  };

  return [
    {
      method: 'GET', pattern: '/channels/:channelId', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        core.requireBotPermissions(channel, Permission.ViewChannel);
        return json(channelJSON(core.world, channel));
      },
    },
    {
      method: 'PATCH', pattern: '/channels/:channelId', auth: true,
      handle: ({ params, body }) => json(channelJSON(core.world, modifyChannel(core, core.channel(params.channelId!), body))),
    },
    {
      method: 'POST', pattern: '/channels/:channelId/messages/:messageId/threads', auth: true,
      handle: ({ params, body }) => {
        const parent = core.channel(params.channelId!);
        const message = core.message(parent.id, params.messageId!);
        if (message.threadId || (message.flags & 64) !== 0) throw errors.threadAlreadyCreated();
        const thread = startThread(parent, body, message.id);
        message.threadId = thread.id;
        addThreadStarter(core, thread, message);
        core.announceUpdate(message);
        return json(channelJSON(core.world, thread), 201);
      },
    },
    {
      method: 'POST', pattern: '/channels/:channelId/threads', auth: true,
      handle: ({ params, body, files }) => {
        const parent = core.channel(params.channelId!);
        if (isThreadOnly(parent)) return forumPost(core, parent, body, files);
        return json(channelJSON(core.world, startThread(parent, body, null)), 201);
      },
    },
    {
      method: 'PUT', pattern: '/channels/:channelId/thread-members/@me', auth: true,
      handle: ({ params }) => {
        const thread = core.channel(params.channelId!);
        if (!thread.thread) throw errors.wrongChannelType();
        core.requireBotPermissions(thread, Permission.ViewChannel);
        if (thread.thread.archived) throw errors.archivedThread();
        thread.thread.memberIds.add(core.botId);
        return noContent();
      },
    },
    {
      method: 'POST', pattern: '/channels/:channelId/typing', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        core.requireBotPermissions(channel, channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages);
        // Recorded with a timestamp so tests can check how often the bot shows "typing…".
        core.emit({ kind: 'typing', channelId: channel.id, at: performance.now() });
        return noContent();
      },
    },
  ];
}

function modifyChannel(core: FakeCore, channel: FakeChannel, body: Json): FakeChannel {
  const errs = new FormErrors();
  validateThreadName(body.name, errs, false);
  errs.throwIfAny();
  const t = channel.thread;
  if (!t) {
    core.requireBotPermissions(channel, Permission.ManageChannels);
    if (typeof body.name === 'string') channel.name = body.name;
    if ('topic' in body) channel.topic = typeof body.topic === 'string' ? body.topic : null;
    if (typeof body.rate_limit_per_user === 'number') channel.rateLimitPerUser = body.rate_limit_per_user;
    core.dispatchChannelUpdate(channel);
    return channel;
  }
  const moderator = core.botHas(channel, Permission.ManageThreads);
  const owner = t.ownerId === core.botId;
  core.requireBotPermissions(channel, Permission.ViewChannel);
  if ('locked' in body && Boolean(body.locked) !== t.locked && !moderator) throw errors.missingPermissions();
  if (t.locked && !moderator) throw errors.threadLocked();
  const changesOtherThanUnarchive = Object.keys(body).some((k) => k !== 'archived');
  if (t.archived && body.archived !== false && changesOtherThanUnarchive) throw errors.archivedThread();
  if (!owner && !moderator && (typeof body.name === 'string' || body.archived === true)) throw errors.missingPermissions();
  const tags = 'applied_tags' in body ? appliedTagsFor(core, channel, body.applied_tags, owner || moderator) : undefined;
  if (typeof body.name === 'string') channel.name = body.name;
  if (typeof body.locked === 'boolean') t.locked = body.locked;
  if (typeof body.archived === 'boolean' && body.archived !== t.archived) {
    t.archived = body.archived;
    t.archiveTimestamp = new Date().toISOString();
  }
  if (typeof body.auto_archive_duration === 'number') t.autoArchiveDuration = body.auto_archive_duration;
  if (tags) t.appliedTags = tags;
  if (typeof body.rate_limit_per_user === 'number') channel.rateLimitPerUser = body.rate_limit_per_user;
  core.dispatchThread('THREAD_UPDATE', channel);
  return channel;
}
