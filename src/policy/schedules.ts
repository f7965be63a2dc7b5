/**
 * Who may schedule questions in a server, and how many: rule logic over values. Moderators choose with
 * `/settings schedules` between `off`, `moderators` (the default) and `everyone`; the operator sets the
 * caps (SCHEDULES_PER_SERVER, SCHEDULES_PER_MEMBER). The same rule decides when a schedule is added
 * and again before every run, so a member who lost the right stops being asked for.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';

/** Who may own schedules in a server. */
export const SCHEDULE_ACCESS = ['off', 'moderators', 'everyone'] as const;
export type ScheduleAccess = (typeof SCHEDULE_ACCESS)[number];

/** What a server nobody configured allows. */
export const DEFAULT_SCHEDULE_ACCESS: ScheduleAccess = 'moderators';

/** The server's setting, or the default. */
export function scheduleAccess(settings: Pick<GuildSettings, 'schedules'> | undefined): ScheduleAccess {
  const value = settings?.schedules;
  return SCHEDULE_ACCESS.includes(value as ScheduleAccess) ? (value as ScheduleAccess) : DEFAULT_SCHEDULE_ACCESS;
}

/** Why a member may not own a schedule under `access` (`off`, or `moderators` for someone who is not one), or undefined. */
export function scheduleRightProblem(access: ScheduleAccess, member: { moderator: boolean }): 'off' | 'moderators-only' | undefined {
  if (access === 'off') return 'off';
  if (access === 'moderators' && !member.moderator) return 'moderators-only';
  return undefined;
}

/** The operator's caps (0: no cap). */
export interface ScheduleCaps {
  /** Schedules one server may have (SCHEDULES_PER_SERVER, default 20). */
  perServer: number;
  /** Schedules one member may own in a server (SCHEDULES_PER_MEMBER, default 5). */
  perMember: number;
  /** Fewest minutes between two runs of one schedule (SCHEDULE_MIN_INTERVAL_MINUTES, default 15, at least 1). */
  minIntervalMinutes: number;
}

/** Which cap a new schedule of `ownerId` would pass, with the count and the cap, or undefined when it fits. */
export function capProblem(
  existing: ReadonlyArray<{ ownerId: string }>,
  ownerId: string,
  caps: Pick<ScheduleCaps, 'perServer' | 'perMember'>,
): { cap: 'server' | 'member'; count: number; max: number } | undefined {
  if (caps.perServer > 0 && existing.length >= caps.perServer) return { cap: 'server', count: existing.length, max: caps.perServer };
  const own = existing.filter((s) => s.ownerId === ownerId).length;
  if (caps.perMember > 0 && own >= caps.perMember) return { cap: 'member', count: own, max: caps.perMember };
  return undefined;
}
