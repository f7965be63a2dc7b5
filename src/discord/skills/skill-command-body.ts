/**
 * A skill as a guild slash command: `/<name>` with its description and each input a required string
 * option, and the size Discord counts for a command (every name, description, choice name and value, and
 * their localisations, across the whole tree: at most 8,000 characters). The same count serves the
 * registrar, which never sends a command over the limit, and the test that checks every built-in.
 */
import type { SkillView } from './skill-catalog.js';

/**
 * The room a skill's inputs share: a run's message (`/name input: value …`) must pass the checks of any
 * question (QUESTION_MAX_CHARS, 4,000 by default), so the inputs together get a little less, and the
 * command's own length limits keep a run from being refused for its length.
 */
export const QUESTION_CHARS_FOR_INPUTS = 3_500;

/** Discord's limits on commands: 100 chat-input commands per guild, 8,000 characters per command. */
export const GUILD_COMMAND_LIMIT = 100;
export const COMMAND_SIZE_LIMIT = 8_000;

/** A command as registered (the fields the registrar writes and compares). */
export interface CommandBody {
  type: number;
  name: string;
  description: string;
  options?: Array<{ type: number; name: string; description: string; required?: boolean; max_length?: number }>;
  [field: string]: unknown;
}

/** The guild command of a skill. */
export function commandBody(skill: Pick<SkillView, 'name' | 'description' | 'inputs'>): CommandBody {
  // Inputs share the room of one question (QUESTION_MAX_CHARS), so together they are never refused for length.
  const each = Math.max(1, Math.floor(QUESTION_CHARS_FOR_INPUTS / Math.max(1, skill.inputs.length)));
  return {
    type: 1,
    name: skill.name,
    description: skill.description,
    options: skill.inputs.map((input) => ({ type: 3, name: input, description: `Input: ${input}`, required: true, max_length: each })),
  };
}

/** What decides whether a registered command is the one wanted (Discord adds defaults and ids of its own). */
export function sameCommand(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const shape = (c: Record<string, unknown>) => JSON.stringify({
    name: c.name, description: c.description,
    options: ((c.options as Array<Record<string, unknown>> | undefined) ?? []).map((o) => ({ type: o.type, name: o.name, description: o.description, required: !!o.required, max_length: o.max_length ?? null })),
  });
  return shape(a) === shape(b);
}

type Json = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? [...v].length : typeof v === 'number' ? String(v).length : 0);
const localised = (v: unknown) => (v && typeof v === 'object' ? Object.values(v as Json).reduce<number>((n, s) => n + text(s), 0) : 0);

/** The characters Discord counts for a command (or an option, recursively). */
export function commandSize(command: Json): number {
  let size = text(command.name) + text(command.description) + localised(command.name_localizations) + localised(command.description_localizations);
  for (const choice of (command.choices as Json[] | undefined) ?? []) size += text(choice.name) + text(choice.value) + localised(choice.name_localizations);
  for (const option of (command.options as Json[] | undefined) ?? []) size += commandSize(option);
  return size;
}
