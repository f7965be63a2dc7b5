/**
 * How skills read in Discord: a skill's line in `/skill list`, its revisions in `/skill show`, why it has
 * no command of its own, who may run it, the refusals, and the audit sentences (an edit's with its old
 * and new text, each cut so the entry stays readable in `/tools audit` and the log channel).
 */
import { escapeDisplayName } from '../../agent/clean-text.js';
import type { RevisionDraft, SkillRevision } from '../../state/index.js';
import type { NoCommand } from '../skills/skill-commands.js';
import type { SkillView } from '../skills/skill-catalog.js';

/** The most of one text an audit sentence quotes (old and new each), so an entry stays under a message. */
const QUOTE_MAX = 350;

/** `text` in quotes on one line, cut to `max`. */
export function quoted(text: string, max = QUOTE_MAX): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return `“${line.length > max ? `${line.slice(0, max - 1)}…` : line}”`;
}

/** Why a skill has no command of its own, and what works instead. */
export function noCommandNote(name: string, why: NoCommand): string {
  const reason = {
    'no-room': 'this server has as many commands as Discord allows (100, my own deployed here included)',
    'too-large': "its command would be longer than Discord's 8,000 characters",
    off: 'skills are off in this server (`/settings skills`)',
    failed: 'Discord did not take its command just now (I try again at the next change or restart)',
  }[why];
  return `\`/${name}\` has no command of its own here: ${reason}. Run it with \`/skill run name:${name}\`.`;
}

/** Who may run a skill. */
export function runnersText(roles: readonly string[]): string {
  return roles.length ? `only members with ${roles.map((r) => `<@&${r}>`).join(' or ')} (and moderators)` : 'everyone who may ask here';
}

/** Where a read-only skill comes from, for a refusal to change it. */
export function operatorSkillText(skill: SkillView): string {
  return `\`/${skill.name}\` is one of this bot's operator's skills (SKILLS_DIR, ${skill.source.kind === 'operator' ? skill.source.file : ''}): it cannot be changed or removed from Discord. Ask the bot's operator. Nothing was changed.`;
}

/** One revision's line: its number, author and date (Discord shows the date in the reader's time zone). */
export function revisionLine(revision: SkillRevision, current: boolean): string {
  const note = revision.note ? ` (${revision.note})` : '';
  return `• Revision ${revision.n}${current ? ' (current)' : ''}: ${escapeDisplayName(revision.authorName)} (<@${revision.authorId}>), <t:${Math.floor(revision.at / 1000)}:f>${note}`;
}

/** A skill's line in `/skill list`. */
export function skillLine(skill: SkillView, own: boolean | undefined): string {
  const inputs = skill.inputs.length ? ` · inputs: ${skill.inputs.join(', ')}` : '';
  const tools = skill.tools.length ? ` · tools: ${skill.tools.map((t) => `\`${t}\``).join(' ')}` : ' · no tools';
  const where = skill.source.kind === 'operator' ? " · the operator's" : '';
  const how = own === false ? ` · run with \`/skill run name:${skill.name}\`` : '';
  return `**/${skill.name}**: ${skill.description}${inputs}${tools}${where}${how}`;
}

/** The audit sentence of an edit: what changed, old and new. */
export function editDetail(name: string, n: number, before: SkillRevision, after: RevisionDraft): string {
  const changes: string[] = [];
  if (before.description !== after.description) changes.push(`description ${quoted(before.description, 120)} → ${quoted(after.description, 120)}`);
  if (before.instructions !== after.instructions) changes.push(`instructions ${quoted(before.instructions)} → ${quoted(after.instructions)}`);
  if (before.inputs.join() !== after.inputs.join()) changes.push(`inputs ${quoted(before.inputs.join(', ') || 'none')} → ${quoted(after.inputs.join(', ') || 'none')}`);
  if (before.tools.join() !== after.tools.join()) changes.push(`tools ${quoted(before.tools.join(' ') || 'none')} → ${quoted(after.tools.join(' ') || 'none')}`);
  return `edited the skill \`/${name}\` (revision ${n}): ${changes.join('; ') || 'nothing changed'}`;
}
