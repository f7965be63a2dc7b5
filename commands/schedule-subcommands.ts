/**
 * `/schedule list`, `pause`, `resume`, `remove` and `run`. Each change is audited and wakes the
 * scheduler; `run` starts the owner's turn now (with the checks of any run) and answers with a link to
 * its thread as soon as it is open.
 */
import { cachedMentionNames } from '../src/discord/members.js';
import { scheduleLine } from '../src/discord/text/schedule-text.js';
import {
  pauseSchedule as pauseSchedule_,
  removeSchedule as removeSchedule_,
  resumeSchedule as resumeSchedule_,
  ScheduleGone,
  type ScheduleChangeDeps,
} from '../src/discord/schedules/schedule-changes.js';
import type { ScheduledPlace } from '../src/discord/turn/origin.js';
import { OptionProblem } from './command-options.js';
import { actorOf } from './moderation.js';
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

/** What the shared schedule changes need, from the command's services. */
function changeDeps(services: ScheduleCommandServices): ScheduleChangeDeps {
  const { store, now, changed, forget } = services.schedules;
  return { store, now, changed, forget, rules: services.rules, logger: services.runtime.logger };
}

/** Run a shared change, turning a schedule removed meanwhile into the command's refusal. */
async function change(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ScheduleGone) throw new OptionProblem(error.message);
    throw error;
  }
}

export async function pauseSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  return change(() => pauseSchedule_(changeDeps(services), actorOf(interaction), found, interaction.options.getString('reason') ?? undefined));
}

export async function resumeSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  // Owners resume only while they may own schedules; a moderator may resume anyone's (its runs check its owner).
  if (found.paused && found.ownerId === interaction.user.id) await requireRight(interaction, services);
  return change(() => resumeSchedule_(changeDeps(services), actorOf(interaction), found));
}

export async function removeSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  const found = await chosenSchedule(interaction, services);
  return change(() => removeSchedule_(changeDeps(services), actorOf(interaction), found));
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
