/**
 * The sentences of scheduled questions: when they run (in the schedule's own zone, and as Discord
 * timestamps every reader sees in their own), the lines of `/schedule list`, the headline and thread
 * name of a run, the note about skipped runs, and why a schedule was refused or paused.
 */
import { escapeDisplayName } from '../../agent/clean-text.js';
import { recurrence } from '../../schedules/index.js';
import type { OccurrenceMark, Schedule } from '../../state/index.js';
import { NO_NAMES, plainMentions, type MentionNames } from '../members.js';
import { permissionList } from '../posting/permissions.js';
import { graphemeBoundary, TEXT_CAPS } from '../../agent/text-caps.js';
import { closeOpenFence, fitMessage } from '../posting/split-message.js';

const formats = new Map<string, Intl.DateTimeFormat>();
function format(timeZone: string, kind: 'long' | 'stamp'): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone}`;
  let made = formats.get(key);
  if (!made) {
    made = kind === 'long'
      ? new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      : new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(key, made);
  }
  return made;
}

/** Most skipped runs counted for the note in the next run's thread (past it: "100 or more"). */
export const SKIPPED_COUNT_CAP = 100;

/** In the thread of a scheduled run that this process was too slow to begin, and another made instead. */
export const TAKEN_OVER_NOTE = '-# ⏭️ This run was taken over by another instance of the bot, which answers it in a thread of its own.';

/** `Mon 3 Mar 2025 09:00` in `timeZone`. */
export function localTime(ms: number, timeZone: string): string {
  return format(timeZone, 'long').format(ms).replace(/,/g, '');
}

/** `2025-03-03 09:00` in `timeZone`: how a run's thread is named, sorting by date. */
export function stampTime(ms: number, timeZone: string): string {
  return format(timeZone, 'stamp').format(ms).replace(',', '');
}

/** A Discord timestamp: every reader sees it in their own time zone. */
export const discordTime = (ms: number, style: 'F' | 'R' | 'f' = 'F') => `<t:${Math.floor(ms / 1000)}:${style}>`;

/** `every weekday at 09:00 (Europe/Paris)`. */
export function whenText(schedule: Pick<Schedule, 'description' | 'timeZone'>): string {
  return `${schedule.description} (${schedule.timeZone})`;
}

/** The next `count` runs, one per line: the Discord timestamp, then the time in the schedule's zone. */
export function nextRunsText(schedule: Pick<Schedule, 'cron' | 'timeZone'>, afterMs: number, count = 3): string {
  return recurrence(schedule.cron, schedule.timeZone).nextRuns(count, afterMs)
    .map((ms) => `• ${discordTime(ms)} · ${localTime(ms, schedule.timeZone)} ${schedule.timeZone}`).join('\n');
}

/** A question on one line, mentions as plain words, cut at `max` characters. */
export function questionPreview(question: string, max: number, names: MentionNames = NO_NAMES): string {
  const line = plainMentions(question, names).replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, graphemeBoundary(line, max - 1))}…`;
}

/** A run's thread: `2025-03-03 09:00 · Open incidents?`, within Discord's 100 characters. */
export function runThreadName(schedule: Pick<Schedule, 'question' | 'timeZone'>, atMs: number, names?: MentionNames): string {
  const stamp = stampTime(atMs, schedule.timeZone);
  return `${stamp} · ${questionPreview(schedule.question, 100 - stamp.length - 3, names) || 'Scheduled question'}`;
}

/** The message a run starts from: whose question, when it runs, and the question. */
export function runHeadline(schedule: Schedule, ownerName: string, atMs: number | 'now'): string {
  const when = atMs === 'now' ? 'run now by hand' : `${localTime(atMs, schedule.timeZone)} ${schedule.timeZone}`;
  const q = schedule.question.length > TEXT_CAPS.quotedQuestion ? `${schedule.question.slice(0, graphemeBoundary(schedule.question, TEXT_CAPS.quotedQuestion - 1))}…` : schedule.question;
  return fitMessage(`⏰ **${escapeDisplayName(ownerName)}**'s scheduled question \`${schedule.id}\` (${schedule.description}; ${when}): ${closeOpenFence(q)}`);
}

/** What the next run's thread says about the runs that were not made. */
export function skippedNote(skipped: number, lastSkippedMs: number | undefined, timeZone: string, graceMinutes: number): string {
  const which = skipped === 1 ? 'The previous run' : `${skipped >= SKIPPED_COUNT_CAP ? `${SKIPPED_COUNT_CAP} or more` : skipped} earlier runs`;
  const last = lastSkippedMs ? ` (${skipped === 1 ? 'due' : 'the last due'} ${discordTime(lastSkippedMs)}, ${localTime(lastSkippedMs, timeZone)} ${timeZone})` : '';
  return `-# ⚠️ ${which} of this schedule ${skipped === 1 ? 'was' : 'were'} skipped${last}: I was offline, and a run more than ${graceMinutes} minutes late is not made.`;
}

/** One schedule in `/schedule list`. */
export function scheduleLine(schedule: Schedule, nowMs: number, mark: OccurrenceMark | undefined, names?: MentionNames): string {
  const head = `**\`${schedule.id}\`** · ${whenText(schedule)} · <#${schedule.channelId}> · by <@${schedule.ownerId}>${schedule.thread === 'same' ? ' · one thread' : ''}`;
  const question = `> ${questionPreview(schedule.question, 150, names)}`;
  const last = mark?.lastRunMs ? ` · last run ${discordTime(mark.lastRunMs, 'R')}` : '';
  if (schedule.paused) {
    const by = schedule.paused.auto ? 'by me' : schedule.paused.byId ? `by <@${schedule.paused.byId}>` : '';
    return `${head}\n${question}\n⏸️ Paused ${discordTime(schedule.paused.at, 'R')} ${by}: ${schedule.paused.reason}${last}`;
  }
  const next = recurrence(schedule.cron, schedule.timeZone).next(nowMs);
  return `${head}\n${question}\n▶️ Next ${next ? discordTime(next, 'R') : 'never'}${last}`;
}

/** Why a member may not schedule questions here. */
export function rightRefusal(problem: 'off' | 'moderators-only'): string {
  return problem === 'off'
    ? 'Scheduled questions are turned off in this server (a moderator chose this with `/settings schedules`). Nothing was saved.'
    : 'Only moderators (members with **Manage Server**) may schedule questions in this server; a moderator can open it to everyone with `/settings schedules everyone`. Nothing was saved.';
}

/** Why a member may not schedule a question into a channel: the permissions they lack to post there, named. */
export function postRefusal(missing: readonly string[], channelId: string): string {
  return `You cannot post in <#${channelId}>: you are missing ${permissionList(missing)} there, and its runs would post there for you. Pick a channel where you may post, or ask a moderator for ${missing.length > 1 ? 'them' : 'it'}. Nothing was saved.`;
}

/** Why a run was not made: its owner lacks permissions to post in its channel now (one hidden from them: they cannot see it). */
export function postPauseReason(missing: readonly string[], channelId: string): string {
  return missing.includes('View Channel')
    ? `its owner can no longer see <#${channelId}>.`
    : `its owner may no longer post in <#${channelId}>: they are missing ${permissionList(missing)} there.`;
}

/** Why a schedule could not be added: a cap. */
export function capRefusal(cap: 'server' | 'member', max: number): string {
  return cap === 'server'
    ? `This server has its ${max} scheduled questions, the most it may have. Remove one with \`/schedule remove\` first. Nothing was saved.`
    : `You have ${max} scheduled questions in this server, the most one member may have. Remove one with \`/schedule remove\` first. Nothing was saved.`;
}

/** What the owner is told when the bot paused their schedule because a run could not happen. */
export function pausedNotice(schedule: Schedule, reason: string, where: 'channel' | 'dm', guildName?: string): string {
  const place = where === 'dm' ? ` in **${escapeDisplayName(guildName ?? 'the server')}**` : '';
  return fitMessage(`⏸️ <@${schedule.ownerId}>, I paused your scheduled question \`${schedule.id}\`${place} (“${questionPreview(schedule.question, 120)}”, ${whenText(schedule)}): ${reason} No model call was made. \`/schedule list\` shows why; resume it with \`/schedule resume\` once that is fixed.`);
}
