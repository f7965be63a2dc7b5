/**
 * One scheduled run, start to end: the checks against Discord as it is now (pre-run-checks.ts), then the
 * owner's turn (run-occurrence.ts), its thread opened by the pipeline, then what the outcome means for the
 * schedule. A run that cannot happen (the checks, a usage limit, a thread the bot cannot open) makes no
 * model call and pauses the schedule, telling the owner why (pause-notice.ts).
 */
import type { Client } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { ChangeRecord } from '../../policy/index.js';
import type { ConversationStore, Schedule, ScheduleStore } from '../../state/index.js';
import type { Rules } from '../rules/rules.js';
import { skippedNote } from '../text/schedule-text.js';
import type { TurnOutcome } from '../turn/outcome.js';
import type { Turns } from '../turn/pipeline.js';
import type { ScheduledPlace } from '../turn/origin.js';
import { pauseAndTell } from './pause-notice.js';
import { preRunChecks } from './pre-run-checks.js';
import { runOccurrence } from './run-occurrence.js';
import { cachedMentionNames } from '../members.js';
import { runHeadline, runThreadName } from '../text/schedule-text.js';
import type { DueOccurrence } from './scheduler.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { scheduledSkill } from './scheduled-skill.js';

export interface RunnerDeps {
  turns: Pick<Turns, 'start' | 'checkInput'>;
  rules: Pick<Rules, 'at'>;
  /** The skills a schedule may run (`/schedule add skill:`). */
  skills?: Pick<SkillCatalog, 'find'>;
  schedules: Pick<ScheduleStore, 'update'>;
  conversations: Pick<ConversationStore, 'setStarter'>;
  /** The audit writer (an automatic pause is audited as the bot's change). */
  audit(guildId: string, record: ChangeRecord): Promise<void>;
  graceMinutes: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The scheduler's clock. */
  now: () => number;
}

/** How a scheduled run went: it ran (the turn's outcome), the schedule was paused instead, or it was not made this time. */
export type ScheduledRun =
  | { kind: 'ran'; outcome: TurnOutcome }
  | { kind: 'paused'; reason: string }
  | { kind: 'not-run'; reason: string };

/** An occurrence the scheduler won, or a run by hand (`/schedule run`). */
export type RunRequest = Pick<DueOccurrence, 'schedule' | 'atMs' | 'skipped' | 'lastSkippedMs' | 'begin'> | { schedule: Schedule; manual: true };

export interface ScheduleRunner {
  /** Run it; `placed` is told where once the thread is open (a run by hand links to it at once). */
  run(client: Client, request: RunRequest, placed?: (where: ScheduledPlace) => void): Promise<ScheduledRun>;
}

export function createScheduleRunner(deps: RunnerDeps): ScheduleRunner {
  return {
    async run(client, request, placed) {
      const { schedule } = request;
      const logFields = { guildId: schedule.guildId, schedule: schedule.id, channelId: schedule.channelId, userId: schedule.ownerId };
      const pre = await preRunChecks(client, schedule, deps.rules);
      const skill = pre.ok ? await scheduledSkill(deps, schedule, pre) : undefined;
      const checked = pre.ok && skill && !skill.ok ? { ...skill, tell: 'channel' as const, channel: pre.channel } : pre;
      if (!checked.ok) {
        if (checked.transient) {
          deps.logger.warn({ ...logFields, reason: checked.reason }, 'a scheduled run was not made (no model call); the schedule stays active');
          return { kind: 'not-run', reason: checked.reason };
        }
        await pauseAndTell(deps, client, schedule, checked.reason, { where: checked.tell, channel: checked.channel });
        return { kind: 'paused', reason: checked.reason };
      }
      const manual = 'manual' in request;
      const atMs = manual ? deps.now() : request.atMs;
      const note = !manual && request.skipped > 0 ? skippedNote(request.skipped, request.lastSkippedMs, schedule.timeZone, deps.graceMinutes) : undefined;
      const ownerName = checked.member.displayName;
      const outcome = await runOccurrence(deps.turns, {
        scope: checked.scope,
        author: { id: checked.member.id, name: ownerName },
        question: schedule.question,
        logFields,
        channel: checked.channel,
        ...(checked.thread ? { thread: checked.thread } : {}),
        headline: runHeadline(schedule, ownerName, manual ? 'now' : atMs),
        threadName: runThreadName(schedule, atMs, cachedMentionNames(checked.channel.guild)),
        ...(note ? { note } : {}),
        ...(manual ? {} : { begin: request.begin }),
        ...(skill?.ok && skill.run ? { skill: skill.run } : {}),
        placed: async (where) => {
          // A schedule with one thread for all runs keeps the thread its first run opened.
          if ('threadId' in where && schedule.thread === 'same' && !checked.thread) {
            await deps.schedules.update(schedule.guildId, schedule.id, (s) => ({ ...s, threadId: where.threadId }))
              .catch((error) => deps.logger.warn({ err: error, schedule: schedule.id }, "could not save the schedule's thread; its next run opens another"));
          }
          placed?.(where);
        },
      });
      // Refused (a usage limit, the question itself) or unable (the bot could not open or post in its
      // thread): nothing ran, and the next runs would fail the same way until someone acts.
      if (outcome.kind === 'refused' || outcome.kind === 'unable') {
        await pauseAndTell(deps, client, schedule, outcome.message, { where: outcome.kind === 'unable' ? 'dm' : 'channel', channel: checked.channel });
        return { kind: 'paused', reason: outcome.message };
      }
      // Its thread busy for too long, or its occurrence taken over by another process (the scheduler logged why).
      if (outcome.kind === 'busy') deps.logger.warn({ ...logFields, reason: outcome.message }, 'a scheduled run was not made');
      return { kind: 'ran', outcome };
    },
  };
}
