/**
 * Where a scheduled run posts, made once the run is admitted: a new thread per run, opened on a message
 * in the schedule's channel and named with the run's date (`2025-03-03 09:00 · Open incidents?`), or the
 * schedule's one thread for all runs (opened by its first run, again if it was deleted or locked), with
 * a message that starts each run. The note about skipped runs is the first thing in the run's thread.
 */
import type { Logger } from '../../logger.js';
import type { ConversationStore, Schedule, ScheduleStore } from '../../state/index.js';
import { cachedMentionNames } from '../interaction-info.js';
import { describeDiscordError } from '../posting/discord-errors.js';
import { NO_MENTIONS } from '../posting/mention-words.js';
import { missingFor } from '../posting/preflight.js';
import { threadTarget } from '../posting/target.js';
import { runHeadline, runThreadName } from '../text/schedule-text.js';
import type { TurnPlace } from '../turn/pipeline.js';
import type { ScheduleChannel } from './pre-run-checks.js';
import type { ThreadChannel } from 'discord.js';

export interface PlaceDeps {
  conversations: Pick<ConversationStore, 'setStarter'>;
  schedules: Pick<ScheduleStore, 'update'>;
  logger: Pick<Logger, 'warn'>;
}

/** What a run is placed with: where, whose, when, and the note for its thread. */
export interface RunPlacement {
  schedule: Schedule;
  channel: ScheduleChannel;
  /** The schedule's own thread (one thread for all runs), when it can still be used. */
  thread?: ThreadChannel;
  ownerName: string;
  /** The occurrence (or, for a run by hand, now). */
  atMs: number;
  /** Run by hand (`/schedule run`), not at an occurrence. */
  manual?: boolean;
  note?: string;
}

export async function placeRun(deps: PlaceDeps, run: RunPlacement): Promise<TurnPlace> {
  const { schedule, channel } = run;
  const headline = runHeadline(schedule, run.ownerName, run.manual ? 'now' : run.atMs);
  const at = run.atMs;
  try {
    if (run.thread) {
      const start = await run.thread.send({ content: run.note ? `${headline}\n${run.note}` : headline, allowedMentions: NO_MENTIONS });
      return { target: threadTarget(run.thread), reply: { channelId: start.channelId, messageId: start.id } };
    }
    const start = await channel.send({ content: headline, allowedMentions: NO_MENTIONS });
    const thread = await start.startThread({ name: runThreadName(schedule, at, cachedMentionNames(channel.guild)), autoArchiveDuration: 1440 });
    // The thread is the owner's: `/reset` goes by this.
    await deps.conversations.setStarter(thread.id, schedule.ownerId).catch((error) => deps.logger.warn({ err: error, threadId: thread.id }, "could not record the thread's starter"));
    if (schedule.thread === 'same') {
      await deps.schedules.update(schedule.guildId, schedule.id, (s) => ({ ...s, threadId: thread.id }))
        .catch((error) => deps.logger.warn({ err: error, schedule: schedule.id }, "could not save the schedule's thread; its next run opens another"));
    }
    if (run.note) await thread.send({ content: run.note, allowedMentions: NO_MENTIONS });
    return { target: threadTarget(thread), reply: { channelId: start.channelId, messageId: start.id } };
  } catch (error) {
    deps.logger.warn({ err: error, guildId: schedule.guildId, schedule: schedule.id }, 'could not open the thread of a scheduled run');
    const me = channel.guild.members.me;
    return { unable: describeDiscordError(error, `open a thread for this scheduled question in <#${channel.id}>`, missingFor('new thread', me ? channel.permissionsFor(me) : null)) };
  }
}
