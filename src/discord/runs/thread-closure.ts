/**
 * Threads closed under a run. When a moderator locks or archives a thread, or deletes it, the runs in
 * it stop at once (no further model calls), nothing more is posted there, and the log says why.
 */
import { Events, type AnyThreadChannel, type Client } from 'discord.js';
import { missingInThread } from '../posting/preflight.js';
import type { Logger } from '../../logger.js';
import type { PostingEndedCause, RunRegistry, ThreadClosedCause } from './run-registry.js';

const NOTES: Record<PostingEndedCause, string> = {
  'cannot-post': 'Stopped: Discord refused my posts in the thread (a permission was taken away), so I stopped working on this.',
  'thread-locked': 'Stopped: the thread was locked, so I stopped working on this.',
  'thread-archived': 'Stopped: the thread was archived, so I stopped working on this.',
  'thread-deleted': 'Stopped: the thread was deleted, so I stopped working on this.',
};

/** What the person is told (outside the thread) when their run stopped because it could post nothing more there. */
export function closedThreadNote(cause: PostingEndedCause): string {
  return NOTES[cause];
}

/** How a thread update closes a thread, if it does: newly locked, or newly archived. */
export function closingChange(before: Pick<AnyThreadChannel, 'locked' | 'archived'> | null, after: Pick<AnyThreadChannel, 'locked' | 'archived'>): ThreadClosedCause | undefined {
  if (after.locked && !before?.locked) return 'thread-locked';
  if (after.archived && !before?.archived) return 'thread-archived';
  return undefined;
}

/** Stop the runs of any thread that is locked, archived or deleted while they go on. */
export function stopRunsInClosedThreads(client: Client, runs: RunRegistry, logger: Logger): void {
  const stopIn = (thread: AnyThreadChannel, cause: ThreadClosedCause) => {
    const running = runs.inThread(thread.id);
    if (running.length === 0) return;
    for (const run of running) runs.stop(run.id, cause);
    logger.info(
      { threadId: thread.id, guildId: thread.guildId, runIds: running.map((r) => r.id), cause },
      `${cause === 'thread-deleted' ? 'thread deleted' : cause === 'thread-locked' ? 'thread locked' : 'thread archived'} during a run: stopped it (no further model calls, nothing more posted there)`,
    );
  };
  client.on(Events.ThreadUpdate, (before, after) => {
    const cause = closingChange(before, after);
    if (cause) stopIn(after, cause);
  });
  client.on(Events.ThreadDelete, (thread) => stopIn(thread, 'thread-deleted'));
}

/**
 * Stop the runs of threads where the bot may no longer post: a permission taken away from the bot (the
 * channel's overrides, a role's permissions, the bot's roles) while they go on. As for a closed thread:
 * no further model calls, nothing more posted there, the reason logged and told where the bot can still
 * write. A post that Discord refuses stops the run too (turn/run-turn.ts); this catches it before one.
 */
export function stopRunsThatCannotPost(client: Client, runs: RunRegistry, logger: Logger): void {
  const check = () => {
    for (const run of runs.all()) {
      if (run.stopCause) continue;
      const thread = client.channels.cache.get(run.threadId);
      if (!thread?.isThread()) continue;
      const missing = missingInThread(thread);
      if (missing.length === 0) continue;
      runs.stop(run.id, 'cannot-post');
      logger.warn({ threadId: thread.id, guildId: thread.guildId, runId: run.id, missing }, 'the bot lost a permission it needs in a thread during a run: stopped it (no further model calls)');
    }
  };
  client.on(Events.ChannelUpdate, check);
  client.on(Events.ThreadUpdate, check);
  client.on(Events.GuildRoleUpdate, check);
  client.on(Events.GuildMemberUpdate, (_before, after) => {
    if (after.id === client.user?.id) check();
  });
}
