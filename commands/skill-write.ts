/**
 * The `/skill` subcommands that change skills: `create`, `import`, `rollback`, `remove`, `access`, and
 * the edit form's submission (`edit` opens it, prefilled, in skill.ts). Each checks who may (skill-
 * access.ts) and what the skill says (src/skills/: the same checks for every way one is made), saves,
 * brings the server's skill commands in line, and is audited: an edit with its old and new text.
 */
import { displayNameOf } from '../src/discord/members.js';
import type { SyncReport } from '../src/discord/skills/skill-commands.js';
import { editDetail, noCommandNote, quoted, runnersText } from '../src/discord/text/skill-text.js';
import { describeError } from '../src/errors.js';
import { checkSkill, parseSkillMd, SKILL_MD_MAX_BYTES, type SkillDraft } from '../src/skills/index.js';
import type { RevisionDraft } from '../src/state/index.js';
import { OptionProblem } from './command-options.js';
import { changeableSkill, isModerator, requireWrite, type GuildCommand, type GuildModal, type SkillCommandServices } from './skill-access.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type Interaction = GuildCommand | GuildModal;

/** A draft checked like any new skill: the cleaned skill and the notes for its author, or an OptionProblem. */
export function checked(draft: SkillDraft, services: SkillCommandServices): { skill: SkillDraft; notes: string[] } {
  const result = checkSkill(draft, { builtIns: services.rules.skills.builtIns, tools: services.rules.tools.map((t) => t.name) });
  if (!result.ok) throw new OptionProblem(result.problem);
  return result;
}

/** A revision by the member, now. */
function revisionBy(interaction: Interaction, services: SkillCommandServices, skill: SkillDraft, note?: string): RevisionDraft {
  return {
    description: skill.description, instructions: skill.instructions, inputs: [...skill.inputs], tools: [...skill.tools],
    authorId: interaction.user.id, authorName: displayNameOf(interaction.member, interaction.user), at: services.runtime.now().getTime(),
    ...(note ? { note } : {}),
  };
}

/** Record a change in the audit log and the log channel: '' or a note that it could not be. */
async function audit(interaction: Interaction, services: SkillCommandServices, action: string, detail: string): Promise<string> {
  try {
    const actor = { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) };
    return (await services.rules.recordAction(interaction.guildId, actor, { action, detail: detail.slice(0, 1_500) })).logNote;
  } catch (error) {
    services.runtime.logger.error({ err: error, guildId: interaction.guildId, action }, 'could not record a skill change in the audit log');
    return `\n-# ⚠️ Done, but I could not record it in the audit log (${describeError(error)}), so it is not in \`/tools audit\` or the log channel.`;
  }
}

/** The skill's commands brought in line; the line about how members run `name`. */
async function syncedLine(interaction: Interaction, services: SkillCommandServices, name: string): Promise<string> {
  const report: SyncReport = await services.rules.skills.commands.sync(interaction.client, interaction.guildId);
  const why = report.without.get(name);
  if (why) return `-# ℹ️ ${noCommandNote(name, why)}`;
  if (report.error && !report.registered.has(name)) return `-# ⚠️ ${report.error} Run it with \`/skill run name:${name}\` meanwhile.`;
  return '';
}

/** A summary of a skill for an audit line. */
const summary = (s: SkillDraft) => `${quoted(s.description, 100)}: instructions ${quoted(s.instructions)}; inputs ${s.inputs.join(', ') || 'none'}; tools ${s.tools.join(' ') || 'none'}`;

/** Save a new skill (`create`, `import`): its caps checked as it is saved. */
export async function saveNew(interaction: Interaction, services: SkillCommandServices, draft: SkillDraft, how: 'create' | 'import', notes: string[] = []): Promise<string> {
  await requireWrite(interaction, services);
  const { skill, notes: more } = checked(draft, services);
  const { catalog, store, maxPerGuild } = services.rules.skills;
  const existing = await catalog.find(interaction.guildId, skill.name);
  if (existing?.source.kind === 'operator') throw new OptionProblem(`\`/${skill.name}\` is one of this bot's operator's skills (SKILLS_DIR): choose another name. Nothing was saved.`);
  if (existing && how === 'import') return reviseFrom(interaction, services, skill, 'import', [...notes, ...more]);
  const created = await store.create(interaction.guildId, { name: skill.name, ownerId: interaction.user.id, first: revisionBy(interaction, services, skill, how === 'import' ? 'imported' : undefined) }, (all) =>
    all.some((s) => s.name === skill.name) ? 'exists' : all.length >= maxPerGuild ? 'full' : undefined,
  );
  if (!created.ok) {
    throw new OptionProblem(created.refused === 'exists'
      ? `This server already has a skill \`/${skill.name}\`: change it with \`/skill edit\`, or choose another name. Nothing was saved.`
      : `This server has ${maxPerGuild} skills, the most it may have (SKILLS_MAX_PER_GUILD): remove one first. Nothing was saved.`);
  }
  const line = await syncedLine(interaction, services, skill.name);
  const logNote = await audit(interaction, services, `skill.${how}`, `${how === 'import' ? 'imported' : 'created'} the skill \`/${skill.name}\` ${summary(skill)}`);
  const runs = line ? '' : ` Members run it with \`/${skill.name}\` (${runnersText([])}).`;
  return [`✅ ${how === 'import' ? 'Imported' : 'Created'} the skill \`/${skill.name}\` (revision 1).${runs}`, line, ...[...notes, ...more].map((n) => `-# ℹ️ ${n}`)].filter(Boolean).join('\n') + logNote;
}

/** A new revision of a skill the member may change: the form's text, an import, a rollback. */
export async function reviseFrom(interaction: Interaction, services: SkillCommandServices, draft: SkillDraft, how: 'edit' | 'import' | 'rollback', notes: string[] = [], note?: string): Promise<string> {
  const found = await changeableSkill(interaction, draft.name, services);
  const before = found.source.stored.revisions.at(-1)!;
  const revision = revisionBy(interaction, services, draft, note ?? (how === 'import' ? 'imported' : undefined));
  if (how === 'edit' && before.description === revision.description && before.instructions === revision.instructions && before.inputs.join() === revision.inputs.join() && before.tools.join() === revision.tools.join()) {
    return `\`/${found.name}\` is unchanged (the form said what it says already). Nothing was saved.`;
  }
  const saved = await services.rules.skills.store.revise(interaction.guildId, found.name, revision);
  if (!saved) throw new OptionProblem(`\`/${found.name}\` was removed meanwhile. Nothing was saved.`);
  const n = saved.revisions.at(-1)!.n;
  const line = await syncedLine(interaction, services, found.name);
  const logNote = await audit(interaction, services, `skill.${how}`, editDetail(found.name, n, before, revision).replace(/^edited/, how === 'edit' ? 'edited' : how === 'import' ? 'imported over' : `rolled back${(note ?? '').replace(/^rollback/, '')},`));
  const head = how === 'rollback' ? `✅ \`/${found.name}\` is back to that text, as revision ${n}, a ${note?.replace('rollback to', 'copy of')}.` : `✅ Saved revision ${n} of \`/${found.name}\`${how === 'import' ? ' (imported)' : ''}. The previous one is kept: \`/skill rollback\` goes back to it.`;
  return [head, line, ...notes.map((x) => `-# ℹ️ ${x}`)].filter(Boolean).join('\n') + logNote;
}

/** `/skill create name: description: instructions: [inputs:] [tools:]`. */
export async function createSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<string> {
  const o = interaction.options;
  const draft = draftOf(o.getString('name', true), o.getString('description', true), o.getString('instructions', true), o.getString('inputs'), o.getString('tools'));
  return saveNew(interaction, services, draft, 'create');
}

/** A draft from what a member typed (the command's options, the edit form). */
export function draftOf(name: string, description: string, instructions: string, inputs: string | null, tools: string | null): SkillDraft {
  return { name: name.trim(), description, instructions, inputs: (inputs ?? '').split(/[,\s]+/).filter(Boolean), tools: (tools ?? '').split(/[,\s]+/).filter(Boolean) };
}

/** The edit form, submitted. */
export async function submitEdit(interaction: GuildModal, services: SkillCommandServices, name: string): Promise<string> {
  const field = (id: string) => interaction.fields.getTextInputValue(id);
  const draft = draftOf(name, field('description'), field('instructions'), field('inputs'), field('tools'));
  const { skill, notes } = checked(draft, services);
  return reviseFrom(interaction, services, skill, 'edit', notes);
}

/** `/skill rollback name: revision:`: that revision's text again, as a new revision. */
export async function rollbackSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<string> {
  const found = await changeableSkill(interaction, interaction.options.getString('name', true), services);
  const n = interaction.options.getInteger('revision', true);
  const kept = found.source.stored.revisions;
  const target = kept.find((r) => r.n === n);
  if (!target) throw new OptionProblem(`\`/${found.name}\` keeps revisions ${kept[0]!.n} to ${kept.at(-1)!.n} (the newest 20): there is no revision ${n}. Nothing was changed.`);
  if (target === kept.at(-1)) return `Revision ${n} is the current one already. Nothing was changed.`;
  const skill: SkillDraft = { name: found.name, description: target.description, instructions: target.instructions, inputs: target.inputs, tools: target.tools };
  return reviseFrom(interaction, services, skill, 'rollback', [], `rollback to revision ${n}`);
}

/** `/skill remove name:`: the skill and its command go; its threads stay. */
export async function removeSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<string> {
  const found = await changeableSkill(interaction, interaction.options.getString('name', true), services);
  const removed = await services.rules.skills.store.remove(interaction.guildId, found.name);
  if (!removed) throw new OptionProblem(`\`/${found.name}\` was removed meanwhile.`);
  const line = await syncedLine(interaction, services, found.name);
  const logNote = await audit(interaction, services, 'skill.remove', `removed the skill \`/${found.name}\` (revision ${found.revision}: ${summary(found)})`);
  return [`🗑️ Removed the skill \`/${found.name}\` and its command. Its threads stay; schedules that run it pause at their next run.`, line].filter(Boolean).join('\n') + logNote;
}

/** `/skill access name: [role:] [remove:]`: who may run it (no role: everyone who may ask). */
export async function setSkillAccess(interaction: GuildCommand, services: SkillCommandServices): Promise<string> {
  const found = await changeableSkill(interaction, interaction.options.getString('name', true), services);
  const role = interaction.options.getRole('role');
  if (role?.id === interaction.guildId) throw new OptionProblem('@everyone is not a role to limit a skill to: leave out `role` to open it to everyone. Nothing was changed.');
  const drop = interaction.options.getBoolean('remove') ?? false;
  const roles = !role ? [] : drop ? found.roles.filter((r) => r !== role.id) : [...found.roles, role.id];
  await services.rules.skills.store.setRoles(interaction.guildId, found.name, roles);
  const logNote = await audit(interaction, services, 'skill.access', `let ${runnersText(roles)} run the skill \`/${found.name}\``);
  return `✅ \`/${found.name}\` runs for ${runnersText(roles)}.${logNote}`;
}

/** `/skill import file:`: a SKILL.md, from Discord's CDN, checked like a new skill (moderators only). */
export async function importSkill(interaction: GuildCommand, services: SkillCommandServices): Promise<string> {
  if (!isModerator(interaction)) throw new OptionProblem('Only moderators (Manage Server) may import skills. Nothing was imported.');
  const file = interaction.options.getAttachment('file', true);
  if (file.size > SKILL_MD_MAX_BYTES) throw new OptionProblem(`${file.name.slice(0, TEXT_CAPS.typedFileName)} is ${file.size.toLocaleString('en-US')} bytes; a SKILL.md may be at most ${SKILL_MD_MAX_BYTES.toLocaleString('en-US')}. Nothing was imported.`);
  let text: string;
  try {
    text = await services.rules.skills.fromAttachment({ url: file.url, name: file.name, contentType: file.contentType, size: file.size });
  } catch (error) {
    throw new OptionProblem(`${describeError(error)} Nothing was imported.`);
  }
  const parsed = parseSkillMd(text);
  if (!parsed.ok) throw new OptionProblem(parsed.problem);
  try {
    return await saveNew(interaction, services, parsed.draft, 'import', parsed.notes);
  } catch (error) {
    if (error instanceof OptionProblem) throw new OptionProblem(error.message.replace(/Nothing was saved\.$/, 'Nothing was imported.'));
    throw error;
  }
}
