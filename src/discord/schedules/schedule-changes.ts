/**
 * Pausing, resuming and removing a scheduled question, for `/schedule` and the web console alike: the
 * change in the store, the scheduler woken, the action audited (its note if that could not be), and the
 * sentence the person reads. Who may make the change is the caller's check (the owner or a moderator).
 */
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Schedule, ScheduleStore } from '../../state/index.js';
import type { Actor, AuditLine } from '../rules/audit-trail.js';
import type { Rules } from '../rules/rules.js';
import { nextRunsText, questionPreview, whenText } from '../text/schedule-text.js';

/** What a change needs: the store, the scheduler's clock and wake-up, the claims of a removed one, the audit. */
export interface ScheduleChangeDeps {
  store: ScheduleStore;
  now(): number;
  /** A guild's schedules changed: the scheduler looks again (in a console of its own: its next tick does). */
  changed(): void;
  forget(key: string): Promise<void>;
  rules: Pick<Rules, 'recordAction'>;
  logger: Pick<Logger, 'warn' | 'error'>;
}

/** A schedule that changed meanwhile (removed by someone else): the change is refused with this. */
export class ScheduleGone extends Error {}

/** The key a schedule's claims are kept under (unique across guilds). */
export const scheduleKey = (schedule: Pick<Schedule, 'guildId' | 'id'>) => `${schedule.guildId}:${schedule.id}`;

/** Record an action done: '' or the note saying it could not be audited (the action stands either way). */
export async function auditNote(deps: Pick<ScheduleChangeDeps, 'rules' | 'logger'>, guildId: string, actor: Actor, line: AuditLine): Promise<string> {
  try {
    return (await deps.rules.recordAction(guildId, actor, line)).logNote;
  } catch (error) {
    deps.logger.error({ err: error, guildId, action: line.action }, 'could not record a moderator action in the audit log');
    return `\n-# ⚠️ Done, but I could not record it in the audit log (${describeError(error)}), so it is not in \`/tools audit\` or the log channel.`;
  }
}

/** Pause `found` (already paused: says so, changes nothing). */
export async function pauseSchedule(deps: ScheduleChangeDeps, actor: Actor, found: Schedule, reason?: string): Promise<string> {
  if (found.paused) return `\`${found.id}\` is already paused: ${found.paused.reason}`;
  const why = reason?.trim() || `paused by ${actor.name}.`;
  const at = deps.now();
  await deps.store.update(found.guildId, found.id, (s) => ({ ...s, paused: { at, reason: why, byId: actor.id, byName: actor.name } }));
  deps.changed();
  const note = await auditNote(deps, found.guildId, actor, { action: 'schedule.pause', detail: `paused the scheduled question \`${found.id}\` (“${questionPreview(found.question, 80)}”): ${why}` });
  return `⏸️ Paused \`${found.id}\`: no runs until someone resumes it with \`/schedule resume\`.${note}`;
}

/** Resume `found`: it counts from now (runs missed while it was paused are neither made nor reported skipped). */
export async function resumeSchedule(deps: ScheduleChangeDeps, actor: Actor, found: Schedule): Promise<string> {
  if (!found.paused) return `\`${found.id}\` is not paused. Its next runs:\n${nextRunsText(found, deps.now())}`;
  const now = deps.now();
  const resumed = await deps.store.update(found.guildId, found.id, ({ paused: _was, ...s }) => ({ ...s, activeSince: now }));
  if (!resumed) throw new ScheduleGone(`\`${found.id}\` was removed meanwhile. Nothing was changed.`);
  deps.changed();
  const note = await auditNote(deps, found.guildId, actor, { action: 'schedule.resume', detail: `resumed the scheduled question \`${found.id}\` (“${questionPreview(found.question, 80)}”) ${whenText(found)}` });
  return `▶️ Resumed \`${found.id}\` (it had been paused: ${found.paused.reason}). Next runs:\n${nextRunsText(resumed, now)}${note}`;
}

/** Remove `found` and forget its claims; its past threads stay. */
export async function removeSchedule(deps: ScheduleChangeDeps, actor: Actor, found: Schedule): Promise<string> {
  const removed = await deps.store.remove(found.guildId, found.id);
  if (!removed) throw new ScheduleGone(`\`${found.id}\` was removed meanwhile.`);
  deps.changed();
  await deps.forget(scheduleKey(removed)).catch((error) => deps.logger.warn({ err: error, schedule: removed.id }, "could not forget a removed schedule's claims"));
  const note = await auditNote(deps, found.guildId, actor, { action: 'schedule.remove', detail: `removed the scheduled question \`${found.id}\` of <@${found.ownerId}> (“${questionPreview(found.question, 80)}”)` });
  return `🗑️ Removed \`${found.id}\` (“${questionPreview(found.question, 120)}”). Its past threads stay.${note}`;
}
