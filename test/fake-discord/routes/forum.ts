/**
 * The bot in forum and media channels: Start Thread in Forum or Media Channel (channel.mdx) answers
 * the new post with its first message nested as `message`; "the current user must have the
 * SEND_MESSAGES permission (CREATE_PUBLIC_THREADS is ignored)". Editing a post's `applied_tags`
 * (channel.mdx, Modify Channel, Thread params) is for its owner or a moderator.
 */
import { errors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { checkTags, createPost } from '../forum.js';
import { json, type Reply, type UploadedFile } from '../http.js';
import { Permission } from '../permissions.js';
import type { FakeChannel } from '../records.js';
import { channelJSON } from '../serialize.js';
import { isThreadOnly } from '../world.js';

type Json = Record<string, unknown>;

/** POST /channels/{forum}/threads: the post and its first message, in one reply. */
export function forumPost(core: FakeCore, forum: FakeChannel, body: Json, files: UploadedFile[]): Reply {
  core.requireBotPermissions(forum, Permission.SendMessages | (files.length > 0 ? Permission.AttachFiles : 0n));
  const { thread, starter } = createPost(core, { forum: forum as FakeChannel & { guildId: string }, authorId: core.botId, body, files, source: 'channel' });
  // discord.js PR #9100: the REST reply nests the message; THREAD_CREATE over the gateway does not.
  return json({ ...channelJSON(core.world, thread), message: core.messageOut(starter) }, 201);
}

/** New `applied_tags` for a post, checked against its forum (the caller applies them with its other changes). */
export function appliedTagsFor(core: FakeCore, thread: FakeChannel, tags: unknown, ownerOrModerator: boolean): string[] {
  const parent = thread.parentId ? core.world.channels.get(thread.parentId) : undefined;
  if (!parent || !isThreadOnly(parent)) throw errors.wrongChannelType();
  if (!ownerOrModerator) throw errors.missingPermissions();
  return checkTags(core, parent, tags, core.botId, false);
}
