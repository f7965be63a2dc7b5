/**
 * The operator's skills: SKILLS_DIR holds one folder per skill, each with its SKILL.md, read once at
 * start-up for every server. Their tools are kept as written (an MCP server's tools may come later);
 * a run only ever gets those the member may use there. Read-only from Discord (the files are the operator's; a reply says where a
 * skill comes from). Each file passes the checks of any skill; a file that does not stops the start
 * with every problem named, rather than leave a skill silently missing.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseSkillMd, SKILL_MD_MAX_BYTES } from './skill-md.js';
import { checkSkill, type SkillContext, type SkillDraft } from './skill-rules.js';

/** A skill from SKILLS_DIR: its draft as checked, and the file it came from. */
export interface OperatorSkill {
  skill: SkillDraft;
  file: string;
}

/** Thrown when SKILLS_DIR cannot be read whole; the message names every problem. */
export class SkillsDirError extends Error {
  override name = 'SkillsDirError';
}

/** Read every `<dir>/<folder>/SKILL.md`, in folder order. */
export async function loadSkillsDir(dir: string, ctx: SkillContext): Promise<OperatorSkill[]> {
  let folders: string[];
  try {
    folders = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch (error) {
    throw new SkillsDirError(`SKILLS_DIR (${dir}) cannot be read: ${(error as Error).message}. Point it at a folder of skill folders, each with a SKILL.md, or leave it unset.`);
  }
  const problems: string[] = [];
  const skills: OperatorSkill[] = [];
  for (const folder of folders) {
    const file = path.join(dir, folder, 'SKILL.md');
    const size = await stat(file).then((s) => s.size, () => undefined);
    if (size === undefined) continue;
    if (size > SKILL_MD_MAX_BYTES) {
      problems.push(`${file}: ${size} bytes; a SKILL.md may be at most ${SKILL_MD_MAX_BYTES}.`);
      continue;
    }
    const parsed = parseSkillMd(await readFile(file, 'utf8'));
    const checked = parsed.ok ? checkSkill(parsed.draft, ctx) : parsed;
    if (!checked.ok) {
      problems.push(`${file}: ${checked.problem.replace(/ Nothing was (saved|imported)\.$/, '')}`);
      continue;
    }
    if (skills.some((s) => s.skill.name === checked.skill.name)) {
      problems.push(`${file}: another SKILL.md in SKILLS_DIR is already named \`${checked.skill.name}\`.`);
      continue;
    }
    skills.push({ skill: checked.skill, file });
  }
  if (problems.length) throw new SkillsDirError(`SKILLS_DIR has skills that cannot be used:\n- ${problems.join('\n- ')}`);
  return skills;
}
