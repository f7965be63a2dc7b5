/**
 * `/schedule list`, `pause`, `resume`, `remove` and `run`. Each change is audited and wakes the
 * scheduler; `run` starts the owner's turn now (with the checks of any run) and answers with a link to
 * its thread as soon as it is open.
 */
import { displayNameOf, cachedMentionNames } from '../src/discord/members.js';
import { nextRunsText, questionPreview, scheduleLine, whenText } from '../src/discord/text/schedule-text.js';
import type { ScheduledPlace } from '../src/discord/turn/origin.js';
import { OptionProblem } from './command-options.js';
import { auditAction } from './moderation.js';
import { chosenSchedule, requireRight, scheduleKey, type GuildCommand, type ScheduleCommandServices } from './schedule-access.js';

/** Messages of at most this many characters; the list is split over several private messages. */
const PART = 1_900;

export async function listSchedules(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string[]> {
  const all = await services.schedules.store.list(interaction.guildId);
  if (all.length === 0) return ['No scheduled questions in this server yet. Add one with `/schedule add`.'];
  // The member's own first.
  const ordered = [...all.filter((s) => s.ownerId === interaction.user.id), ...all.filter((s) => s.ownerId !== interaction.user.id)];
  const marks = await services.schedules.marks(ordered.map(scheduleKey)).catch(() => new Map());
  const now = services.schedules.now();
  const { perServer } = services.schedules.caps;
  const parts = [`**Scheduled questions** (${all.length}${perServer ? ` of ${perServer}` : ''}, yours first):`];
  for (const s of ordered) {
    const line = scheduleLine(s, now, marks.get(scheduleKey(s)), cachedMentionNames(interaction.guild));
    if (parts.at(-1)!.length + line.length + 2 > PART) parts.push(line);
    else parts[parts.length - 1] += `\n\n${line}`;
  }
  return parts.slice(0, 5);
}

export async function pauseSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  if (found.paused) return `\`${found.id}\` is already paused: ${found.paused.reason}`;
  const name = displayNameOf(interaction.member, interaction.user);
  const reason = interaction.options.getString('reason')?.trim() || `paused by ${name}.`;
  const at = services.schedules.now();
  await services.schedules.store.update(interaction.guildId, found.id, (s) => ({ ...s, paused: { at, reason, byId: interaction.user.id, byName: name } }));
  services.schedules.changed();
  const note = await auditAction(services, interaction, 'schedule.pause', `paused the scheduled question \`${found.id}\` (“${questionPreview(found.question, 80)}”): ${reason}`);
  return `⏸️ Paused \`${found.id}\`: no runs until someone resumes it with \`/schedule resume\`.${note}`;
}

export async function resumeSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  if (!found.paused) return `\`${found.id}\` is not paused. Its next runs:\n${nextRunsText(found, services.schedules.now())}`;
  // Owners resume only while they may own schedules; a moderator may resume anyone's (its runs check its owner).
  if (found.ownerId === interaction.user.id) await requireRight(interaction, services);
  const now = services.schedules.now();
  // Runs missed while it was paused are neither made nor reported as skipped: it counts from now.
  const resumed = await services.schedules.store.update(interaction.guildId, found.id, ({ paused: _was, ...s }) => ({ ...s, activeSince: now }));
  if (!resumed) throw new OptionProblem(`\`${found.id}\` was removed meanwhile. Nothing was changed.`);
  services.schedules.changed();
  const note = await auditAction(services, interaction, 'schedule.resume', `resumed the scheduled question \`${found.id}\` (“${questionPreview(found.question, 80)}”) ${whenText(found)}`);
  return `▶️ Resumed \`${found.id}\` (it had been paused: ${found.paused.reason}). Next runs:\n${nextRunsText(resumed, now)}${note}`;
}

export async function removeSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  const removed = await services.schedules.store.remove(interaction.guildId, found.id);
  if (!removed) throw new OptionProblem(`\`${found.id}\` was removed meanwhile.`);
  services.schedules.changed();
  await services.schedules.forget(scheduleKey(removed)).catch((error) => services.runtime.logger.warn({ err: error, schedule: removed.id }, "could not forget a removed schedule's claims"));
  const note = await auditAction(services, interaction, 'schedule.remove', `removed the scheduled question \`${found.id}\` of <@${found.ownerId}> (“${questionPreview(found.question, 80)}”)`);
  return `🗑️ Removed \`${found.id}\` (“${questionPreview(found.question, 120)}”). Its past threads stay.${note}`;
}

export async function runSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  if (found.paused) throw new OptionProblem(`\`${found.id}\` is paused (${found.paused.reason}). Resume it first with \`/schedule resume\`.`);
  let tellPlaced: (where: ScheduledPlace) => void = () => {};
  const placed = new Promise<ScheduledPlace>((resolve) => (tellPlaced = resolve));
  const run = services.schedules.runNow(interaction.client, found, tellPlaced);
  void run.catch((error) => services.runtime.logger.error({ err: error, schedule: found.id }, 'a scheduled question run by hand failed'));
  const first = await Promise.race([placed.then((place) => ({ place })), run.then((result) => ({ result }))]);
  if ('place' in first) {
    if ('unable' in first.place) return `❌ ${first.place.unable}`;
    return `▶️ Running \`${found.id}\` now, as <@${found.ownerId}>: <#${first.place.threadId}>. Its schedule is unchanged.`;
  }
  const { result } = first;
  if (result.kind === 'paused') return `⏸️ \`${found.id}\` could not run, so I paused it: ${result.reason} No model call was made.`;
  if (result.kind === 'not-run') return `❌ \`${found.id}\` did not run: ${result.reason} Try again in a moment.`;
  return `\`${found.id}\` ended: ${'message' in result.outcome ? result.outcome.message : 'answered.'}`;
}
