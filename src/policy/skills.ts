/**
 * Who may do what with skills: rule logic over values. A server's moderators choose who may write skills
 * with `/settings skills`: `off` (no skills run or change here), `moderators` (the default) or
 * `everyone` (a member may write skills and change their own; moderators change anyone's, so nobody
 * edits another member's skill). Running one is for everyone who may ask in the channel, unless
 * `/skill access` narrowed it to roles; moderators may always run one (to try it).
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';

export const SKILL_ACCESS = ['off', 'moderators', 'everyone'] as const;
export type SkillAccess = (typeof SKILL_ACCESS)[number];

/** What a server nobody configured allows. */
export const DEFAULT_SKILL_ACCESS: SkillAccess = 'moderators';

/** The server's setting, or the default. */
export function skillAccess(settings: Pick<GuildSettings, 'skills'> | undefined): SkillAccess {
  const value = settings?.skills;
  return SKILL_ACCESS.includes(value as SkillAccess) ? (value as SkillAccess) : DEFAULT_SKILL_ACCESS;
}

/** Why a member may not write a new skill (`off`, `moderators-only`), or undefined. */
export function createProblem(access: SkillAccess, member: { moderator: boolean }): 'off' | 'moderators-only' | undefined {
  if (access === 'off') return 'off';
  if (access === 'moderators' && !member.moderator) return 'moderators-only';
  return undefined;
}

/** Why a member may not change a skill: also `not-owner` when everyone may write skills but this one is someone else's. */
export function changeProblem(access: SkillAccess, member: { moderator: boolean; id: string }, skill: { ownerId: string }): 'off' | 'moderators-only' | 'not-owner' | undefined {
  const problem = createProblem(access, member);
  if (problem || member.moderator) return problem;
  return skill.ownerId === member.id ? undefined : 'not-owner';
}

/** Whether a member may run a skill limited to `roles` (none: everyone who may ask here). */
export function mayRun(roles: readonly string[], member: { moderator: boolean; roleIds: readonly string[] }): boolean {
  return roles.length === 0 || member.moderator || roles.some((r) => member.roleIds.includes(r));
}
