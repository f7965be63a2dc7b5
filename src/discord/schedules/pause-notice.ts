/**
 * When a scheduled run cannot happen: the schedule is paused (with the reason `/schedule list` shows),
 * the pause is audited like a moderator's change (by the bot), and the owner is told: in the schedule's
 * channel, or by DM when the channel is the problem (gone, hidden from them, closed to the bot), each
 * falling back on the other. Only the owner is pinged, and only in that notice.
 */
import type { Client } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { ChangeRecord } from '../../policy/index.js';
import type { Schedule, ScheduleStore } from '../../state/index.js';
import { pausedNotice, questionPreview } from '../text/schedule-text.js';
import type { ScheduleChannel } from './pre-run-checks.js';

export interface PauseDeps {
  schedules: Pick<ScheduleStore, 'update'>;
  /** The audit writer: the guild's audit log, then its log channel. */
  audit(guildId: string, record: ChangeRecord): Promise<void>;
  logger: Pick<Logger, 'warn' | 'info'>;
  now: () => number;
}

/** Pause `schedule` because a run could not happen, audit it, and tell its owner where they can read it. */
export async function pauseAndTell(deps: PauseDeps, client: Client, schedule: Schedule, reason: string, tell: { where: 'channel' | 'dm'; channel?: ScheduleChannel }): Promise<void> {
  const at = deps.now();
  const paused = await deps.schedules.update(schedule.guildId, schedule.id, (s) => (s.paused ? s : { ...s, paused: { at, reason, auto: true } }));
  deps.logger.info({ guildId: schedule.guildId, schedule: schedule.id, reason }, 'a scheduled run could not happen: schedule paused, no model call made');
  if (!paused || paused.paused?.at !== at) return; // removed, or paused by someone else meanwhile
  const record = { actorId: client.user!.id, actorName: client.user!.username, action: 'schedule.pause', detail: `paused the scheduled question \`${schedule.id}\` of <@${schedule.ownerId}> (“${questionPreview(schedule.question, 80)}”): ${reason}` };
  await deps.audit(schedule.guildId, record);
  const inChannel = async () => {
    if (!tell.channel) return false;
    await tell.channel.send({ content: pausedNotice(schedule, reason, 'channel'), allowedMentions: { users: [schedule.ownerId] } });
    return true;
  };
  const byDm = async () => {
    const guild = client.guilds.cache.get(schedule.guildId);
    await client.users.send(schedule.ownerId, { content: pausedNotice(schedule, reason, 'dm', guild?.name), allowedMentions: { parse: [] } });
    return true;
  };
  const order = tell.where === 'channel' ? [inChannel, byDm] : [byDm, inChannel];
  for (const attempt of order) {
    try {
      if (await attempt()) return;
    } catch (error) {
      deps.logger.warn({ err: error, guildId: schedule.guildId, schedule: schedule.id }, 'could not tell the owner of a paused schedule here; trying the other way');
    }
  }
}
