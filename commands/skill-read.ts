/**
 * The `/skill` subcommands that read: `list` (the skills the member may run here, and how), `show` (the
 * current text, who may run it, and the author and date of each kept revision; as a file when long)
 * and `export` (a SKILL.md in the Agent Skills format, which `/skill import` reads back).
 */
import { AttachmentBuilder } from 'discord.js';
import { scopeOf } from '../src/discord/members.js';
import { revisionLine, runnersText, skillLine } from '../src/discord/text/skill-text.js';
import { mayRun } from '../src/policy/index.js';
import { formatSkillMd } from '../src/skills/index.js';
import { isModerator, namedSkill, type GuildCommand, type SkillCommandServices } from './skill-access.js';

/** What a subcommand answers: text, and files. */
export interface Answer {
  content: string;
  files?: AttachmentBuilder[];
}

/** Past this, `/skill show` sends the text as a file. */
const INLINE_MAX = 1_500;

export async function listSkills(interaction: GuildCommand, services: SkillCommandServices): Promise<Answer> {
  const { catalog, commands } = services.rules.skills;
  const scope = scopeOf(interaction, interaction.member);
  const member = { moderator: isModerator(interaction), roleIds: scope.roleIds };
  const all = await catalog.list(interaction.guildId);
  const mine = all.filter((s) => mayRun(s.roles, member));
  if (mine.length === 0) return { content: all.length ? 'No skill here is open to you: each is limited to roles you do not have.' : 'This server has no skills yet. A moderator writes one with `/skill create`.' };
  const lines = mine.map((s) => skillLine(s, commands.has(interaction.guildId, s.name)));
  const head = `**Skills you may run here** (${mine.length}${all.length > mine.length ? ` of ${all.length}` : ''}):`;
  let content = head;
  for (const line of lines) {
    if (content.length + line.length + 60 > 2_000) {
      content += `\n…and ${lines.length - content.split('\n').length + 1} more.`;
      break;
    }
    content += `\n${line}`;
  }
  return { content };
}

export async function showSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<Answer> {
  const skill = await namedSkill(interaction.guildId, interaction.options.getString('name', true), services);
  const about = [
    `**/${skill.name}**: ${skill.description}`,
    `Inputs: ${skill.inputs.join(', ') || 'none'} · tools: ${skill.tools.map((t) => `\`${t}\``).join(' ') || 'none'} · runs for ${runnersText(skill.roles)}`,
  ];
  const revisions = skill.source.kind === 'operator'
    ? [`From the operator's SKILLS_DIR (${skill.source.file}): read-only here.`]
    : [...skill.source.stored.revisions].reverse().map((r, i) => revisionLine(r, i === 0));
  const text = ['**Instructions**', '```', skill.instructions.replace(/```/g, 'ˋˋˋ'), '```'].join('\n');
  const whole = [...about, '', ...revisions, '', text].join('\n');
  if (whole.length <= INLINE_MAX) return { content: whole };
  const file = new AttachmentBuilder(Buffer.from(formatSkillMd(skill), 'utf8'), { name: `${skill.name}.SKILL.md` });
  return { content: [...about, '', ...revisions.slice(0, 20)].join('\n').slice(0, 1_900) + '\n-# The instructions are in the attached file.', files: [file] };
}

export async function exportSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<Answer> {
  const skill = await namedSkill(interaction.guildId, interaction.options.getString('name', true), services);
  const file = new AttachmentBuilder(Buffer.from(formatSkillMd(skill), 'utf8'), { name: 'SKILL.md' });
  return { content: `\`/${skill.name}\` as a SKILL.md (Agent Skills format); \`/skill import\` reads it back, here or in another server.`, files: [file] };
}
