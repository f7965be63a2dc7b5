/**
 * A schedule that runs a skill (`/schedule add skill: inputs:`): at each run, the skill as it is now (its
 * current revision), if skills are still on here and its owner may still run it; otherwise the run is
 * not made and says why (the schedule pauses, as for any run that cannot happen).
 */
import { PermissionFlagsBits, type GuildMember } from 'discord.js';
import { mayRun, type RunScope } from '../../policy/index.js';
import type { SkillRun } from '../../skills/skill-run.js';
import type { Schedule } from '../../state/index.js';
import type { Rules } from '../rules/rules.js';
import { skillRunOf, type SkillCatalog } from '../skills/skill-catalog.js';

export type ScheduledSkill = { ok: true; run?: SkillRun } | { ok: false; reason: string; transient?: boolean };

export async function scheduledSkill(
  deps: { skills?: Pick<SkillCatalog, 'find'>; rules: Pick<Rules, 'at'> },
  schedule: Schedule,
  owner: { member: GuildMember; scope: RunScope },
): Promise<ScheduledSkill> {
  const wanted = schedule.skill;
  if (!wanted) return { ok: true };
  const access = await deps.rules.at(owner.scope).skillAccess();
  if (!access) return { ok: false, reason: 'I could not read the skill settings (my storage is not answering).', transient: true };
  if (access === 'off') return { ok: false, reason: 'skills are off in this server now (`/settings skills`).' };
  const found = await deps.skills?.find(schedule.guildId, wanted.name).catch(() => null);
  if (found === null) return { ok: false, reason: 'I could not read the skills of this server (my storage is not answering).', transient: true };
  if (!found) return { ok: false, reason: `the skill \`/${wanted.name}\` it runs was removed.` };
  if (!mayRun(found.roles, { moderator: owner.member.permissions.has(PermissionFlagsBits.ManageGuild), roleIds: owner.scope.roleIds })) {
    return { ok: false, reason: `its owner may no longer run the skill \`/${found.name}\` (\`/skill access\`).` };
  }
  return { ok: true, run: skillRunOf(found, wanted.inputs) };
}
