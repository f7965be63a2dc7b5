/**
 * The checks before any model call in a thread: the bot must be able to post its answer there. A
 * thread that was deleted or is locked, or where the bot lacks View Channel or Send Messages in
 * Threads, gets no run, so no model call is spent on an answer nobody would see. An archived thread is
 * not refused: a member's message reopens it (and Discord may deliver the message before saying so).
 * Attach Files is not checked: without it a long answer is posted as several messages instead.
 */
import { PermissionFlagsBits, type PermissionsBitField, type ThreadChannel } from 'discord.js';
import { missingPermissions, missingPermissionsSentence } from './discord-errors.js';

/** What the bot needs to answer in a thread. */
const NEEDED_IN_THREADS = ['View Channel', 'Send Messages in Threads'];

/** What the bot needs to open a thread in a channel and answer there. */
const NEEDED_FOR_THREADS = ['View Channel', 'Send Messages', 'Create Public Threads', 'Send Messages in Threads'];

/** What the bot lacks, by name, to answer in a thread (`thread`) or to open one in a channel (`new thread`). */
export function missingFor(where: 'thread' | 'new thread', appPermissions: Readonly<PermissionsBitField> | null | undefined): string[] {
  return missingPermissions(appPermissions, where === 'thread' ? NEEDED_IN_THREADS : NEEDED_FOR_THREADS);
}

/**
 * The same check as `threadProblem`, made on the permissions Discord sends with a command (so it is
 * instant, before the command acknowledges): why the bot cannot answer where it was asked, or undefined.
 */
export function commandPlaceProblem(where: 'thread' | 'new thread', appPermissions: Readonly<PermissionsBitField> | null | undefined): string | undefined {
  const missing = missingFor(where, appPermissions);
  if (missing.length === 0) return undefined;
  return missingPermissionsSentence(missing, where === 'thread' ? 'answer in this thread' : 'open a thread on that message');
}

/** Why a thread is closed to the bot's posts (deleted, or locked against it), or undefined. */
export function threadClosed(thread: ThreadChannel): 'deleted' | 'locked' | undefined {
  // discord.js drops a deleted thread from its cache on THREAD_DELETE; the object a turn holds stays.
  if (!thread.client.channels.cache.has(thread.id)) return 'deleted';
  if (thread.locked && !botHas(thread, PermissionFlagsBits.ManageThreads)) return 'locked';
  return undefined;
}

/** The permissions the bot lacks in a thread, by name, of those it needs to answer there. */
export function missingInThread(thread: ThreadChannel, needed: readonly string[] = NEEDED_IN_THREADS): string[] {
  const me = thread.guild.members.me;
  return me ? missingPermissions(thread.permissionsFor(me), [...needed]) : [];
}

/** Why the bot cannot answer in this thread now, as a sentence for the person, or undefined. */
export function threadProblem(thread: ThreadChannel): string | undefined {
  const closed = threadClosed(thread);
  if (closed === 'deleted') return 'This thread was deleted, so I did not answer.';
  if (closed === 'locked') return 'This thread is locked, so I did not answer. Start a new /ask in the channel.';
  const missing = missingInThread(thread);
  if (missing.length > 0) return missingPermissionsSentence(missing, 'answer in this thread');
  return undefined;
}

function botHas(thread: ThreadChannel, permission: bigint): boolean {
  const me = thread.guild.members.me;
  return me ? thread.permissionsFor(me).has(permission) : false;
}
