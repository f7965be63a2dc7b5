/**
 * Posts in forum and media channels (threads.mdx, Forums / Media Channels / Creating Threads in Forum
 * and Media Channels; channel.mdx, Start Thread in Forum or Media Channel): a post is a PUBLIC_THREAD
 * whose parent is the forum, created together with its first message, which has the thread's id. The
 * poster owns the thread; `applied_tags` must come from the forum's `available_tags`. The bot gets
 * THREAD_CREATE (`newly_created: true`) and then the MESSAGE_CREATE of the first message.
 */
import { errors, FormErrors } from './api-error.js';
import type { FakeCore } from './core.js';
import type { UploadedFile } from './http.js';
import { Permission } from './permissions.js';
import { ChannelKind, type FakeChannel, type FakeMessage, MessageKind } from './records.js';
import { validateThreadName } from './validation.js';

type Json = Record<string, unknown>;

export const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080];
/** channel.mdx, Modify Channel (Thread): applied_tags is "limited to 5". */
const MAX_APPLIED_TAGS = 5;

export interface NewPost {
  forum: FakeChannel & { guildId: string };
  authorId: string;
  /** The Start Thread body: name, auto_archive_duration, rate_limit_per_user, applied_tags, message. */
  body: Json;
  files?: UploadedFile[];
  source: 'channel' | 'user';
  /** Hold the first message back this long (a member's upload still in flight); the bot's sends answer 40058 meanwhile. */
  starterDelayMs?: number;
}

export interface CreatedPost {
  thread: FakeChannel;
  /** The first message (id = the thread's id); stored once `posted` resolves. */
  starter: FakeMessage;
  posted: Promise<FakeMessage>;
}

/**
 * Checks applied tags against the forum: known ids (10087 Unknown Tag), at most 5, moderated ones only
 * with Manage Threads, at least one when the forum has REQUIRE_TAG (40067).
 */
export function checkTags(core: FakeCore, forum: FakeChannel, tags: unknown, authorId: string, creating: boolean): string[] {
  const ids = Array.isArray(tags) ? tags.map(String) : [];
  const available = forum.forum?.availableTags ?? [];
  if (ids.length > MAX_APPLIED_TAGS) {
    const errs = new FormErrors();
    errs.add(['applied_tags'], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_APPLIED_TAGS} or fewer in length.`);
    throw errs.error();
  }
  const moderator = (core.world.permissionsIn(forum.id, authorId) & Permission.ManageThreads) !== 0n;
  for (const id of ids) {
    const tag = available.find((t) => t.id === id);
    if (!tag) throw errors.unknownTag();
    if (tag.moderated && !moderator) throw errors.missingPermissions();
  }
  if (creating && forum.forum?.requireTag && ids.length === 0) throw errors.tagRequired();
  return [...new Set(ids)];
}

/** Validates and creates a post with its first message; throws Discord's errors, leaving nothing behind. */
export function createPost(core: FakeCore, init: NewPost): CreatedPost {
  const { forum, body } = init;
  const errs = new FormErrors();
  validateThreadName(body.name, errs, true);
  if (body.auto_archive_duration !== undefined && body.auto_archive_duration !== null
    && !ARCHIVE_DURATIONS.includes(Number(body.auto_archive_duration))) {
    errs.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', `Value must be one of (${ARCHIVE_DURATIONS.join(', ')}).`);
  }
  const message = body.message;
  if (!message || typeof message !== 'object') errs.add(['message'], 'BASE_TYPE_REQUIRED', 'This field is required');
  errs.throwIfAny();
  const appliedTags = checkTags(core, forum, body.applied_tags, init.authorId, true);
  const world = core.world;
  const previousLast = forum.lastMessageId;
  const thread = world.addThread(forum, {
    id: world.nextId(), name: body.name as string, type: ChannelKind.PublicThread, ownerId: init.authorId, appliedTags,
    autoArchiveDuration: body.auto_archive_duration ? Number(body.auto_archive_duration) : undefined,
    rateLimitPerUser: typeof body.rate_limit_per_user === 'number' ? body.rate_limit_per_user : forum.forum?.defaultThreadRateLimitPerUser,
  });
  let starter: FakeMessage;
  try {
    // Forum message params have no message_reference: a post's first message replies to nothing.
    const { message_reference: _ignored, ...params } = message as Json;
    starter = core.buildMessage({
      channel: thread, authorId: init.authorId, body: params, files: init.files, source: init.source,
      type: MessageKind.Default, errorPath: ['message'], counted: false,
    });
  } catch (error) {
    world.channels.delete(thread.id);
    forum.lastMessageId = previousLast;
    throw error;
  }
  // threads.mdx: "a message is created that has the same ID as the thread".
  starter.id = thread.id;
  const delay = init.starterDelayMs ?? 0;
  if (delay > 0 && thread.thread) thread.thread.awaitingStarter = true;
  core.dispatchThread('THREAD_CREATE', thread, { newly_created: true });
  const post = () => {
    if (thread.thread) thread.thread.awaitingStarter = false;
    return core.commit(starter);
  };
  if (delay <= 0) return { thread, starter, posted: Promise.resolve(post()) };
  const posted = new Promise<FakeMessage>((resolve) => {
    const timer = setTimeout(() => {
      core.timers.delete(timer);
      resolve(post());
    }, delay);
    core.timers.add(timer);
  });
  return { thread, starter, posted };
}
