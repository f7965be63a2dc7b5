/**
 * What a skill is allowed to be, checked in one place for every way one is made (`/skill create`, the
 * edit form, `/skill import`, an operator's SKILLS_DIR): a name that can be a Discord command of its own
 * (1–32 of `a-z0-9_-`, not a built-in command), a description Discord shows (≤ 100), the moderator's
 * instructions (≤ 4,000, cleaned of invisible characters, kept as written), up to 5 inputs the member
 * fills in (each a command option name), and the tools it may use (only tools this bot has). A problem
 * is said with the rule, never fixed silently: an invalid name is refused, not renamed.
 */
import { cleanText } from '../agent/clean-text.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** Discord's command name rule, narrowed to what a person can type on any keyboard. */
export const SKILL_NAME = /^[a-z0-9_-]{1,32}$/;
export const SKILL_DESCRIPTION_MAX = 100;
export const SKILL_INSTRUCTIONS_MAX = 4_000;
export const SKILL_INPUTS_MAX = 5;
/** Revisions a skill keeps (the newest); numbers go on counting from 1. */
export const SKILL_REVISIONS_KEPT = 20;

/** A skill as written by a person, before its checks. */
export interface SkillDraft {
  name: string;
  description: string;
  instructions: string;
  /** Input names, in the order the member fills them in. */
  inputs: readonly string[];
  tools: readonly string[];
}

/** What the checks compare with: the bot's own command names and the tools it has (absent: tools kept as written). */
export interface SkillContext {
  builtIns: ReadonlySet<string>;
  tools?: readonly string[];
}

/** A draft that passed, with notes for the author (a tool this server does not have, dropped). */
export type CheckedSkill = { ok: true; skill: SkillDraft; notes: string[] } | { ok: false; problem: string };

/** The rule for names, as the refusal says it. */
export const NAME_RULE = '1 to 32 characters, each a lower-case letter a-z, a digit, `-` or `_`';

/** Why `name` cannot be a skill's name, or undefined. */
export function nameProblem(name: string, builtIns: ReadonlySet<string>): string | undefined {
  const shown = cleanText(name).slice(0, 40).replace(/`/g, 'ˋ');
  if (!SKILL_NAME.test(name)) return `\`${shown}\` cannot be a skill's name: a name is ${NAME_RULE} (it becomes the command \`/name\`). Nothing was saved.`;
  if (builtIns.has(name)) return `\`/${name}\` is one of my own commands, so a skill cannot have that name. Choose another. Nothing was saved.`;
  return undefined;
}

/** Input names from `incident, audience` (commas or spaces); the problem when one is not a valid name. */
export function parseInputs(text: string | undefined): { ok: true; inputs: string[] } | { ok: false; problem: string } {
  const inputs = (text ?? '').split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
  const bad = inputs.find((i) => !SKILL_NAME.test(i));
  if (bad) return { ok: false, problem: `\`${cleanText(bad).slice(0, TEXT_CAPS.typedName).replace(/`/g, 'ˋ')}\` cannot be an input's name: each is ${NAME_RULE}, separated by commas (\`incident, audience\`). Nothing was saved.` };
  if (new Set(inputs).size !== inputs.length) return { ok: false, problem: 'Two inputs have the same name: give each its own. Nothing was saved.' };
  if (inputs.length > SKILL_INPUTS_MAX) return { ok: false, problem: `A skill takes at most ${SKILL_INPUTS_MAX} inputs (it has ${inputs.length}). Nothing was saved.` };
  return { ok: true, inputs };
}

/** Tool names from `calculate web_search` (spaces or commas), as written. */
export function parseToolList(text: string | undefined): string[] {
  return [...new Set((text ?? '').split(/[,\s]+/).map((s) => s.trim()).filter(Boolean))];
}

/**
 * Check a draft whole. The instructions are cleaned of invisible characters (which could hide words
 * from the moderators reading them) and otherwise kept as written; a tool the bot does not have is
 * dropped with a note, so an imported skill still works with what this server has.
 */
export function checkSkill(draft: SkillDraft, ctx: SkillContext): CheckedSkill {
  const named = nameProblem(draft.name, ctx.builtIns);
  if (named) return { ok: false, problem: named };
  const description = cleanText(draft.description).replace(/\s+/g, ' ').trim();
  if (!description) return { ok: false, problem: 'A skill needs a description (what it does, shown beside its command). Nothing was saved.' };
  if ([...description].length > SKILL_DESCRIPTION_MAX) {
    return { ok: false, problem: `The description is ${[...description].length} characters; Discord shows at most ${SKILL_DESCRIPTION_MAX}. Shorten it. Nothing was saved.` };
  }
  const instructions = cleanText(draft.instructions).trim();
  if (!instructions) return { ok: false, problem: 'A skill needs instructions (what the bot should do when it runs). Nothing was saved.' };
  const length = [...instructions].length;
  if (length > SKILL_INSTRUCTIONS_MAX) {
    return { ok: false, problem: `The instructions are ${length.toLocaleString('en-US')} characters; a skill takes at most ${SKILL_INSTRUCTIONS_MAX.toLocaleString('en-US')}. Shorten them. Nothing was saved.` };
  }
  const inputs = parseInputs(draft.inputs.join(','));
  if (!inputs.ok) return inputs;
  const known = new Set(ctx.tools ?? draft.tools);
  const tools = [...new Set(draft.tools)].filter((t) => known.has(t));
  const dropped = [...new Set(draft.tools)].filter((t) => !known.has(t));
  const notes = dropped.length
    ? [`This bot has no tool${dropped.length === 1 ? '' : 's'} ${dropped.map((t) => `\`${cleanText(t).slice(0, TEXT_CAPS.typedTool).replace(/`/g, 'ˋ')}\``).join(', ')}: left out of the skill.`]
    : [];
  return { ok: true, skill: { name: draft.name, description, instructions, inputs: inputs.inputs, tools }, notes };
}
