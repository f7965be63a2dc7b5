/**
 * Skills as stored: one record per guild holding its skills, each with its revisions (the newest 20,
 * numbered from 1), who may run it (roles; none: everyone who may ask), and who made it. Loose objects,
 * so a newer version's fields survive an older one's write. A thread a skill runs in keeps which skill
 * and revision (with its instructions as filled in then) in a record of its own.
 */
import { z } from 'zod';
import { SKILL_DESCRIPTION_MAX, SKILL_INPUTS_MAX, SKILL_INSTRUCTIONS_MAX, SKILL_NAME } from '../../skills/skill-rules.js';
import { SkillRunSchema } from '../../skills/skill-run.js';

/** One version of a skill. */
export const SkillRevisionSchema = z.looseObject({
  /** Numbered from 1 (the first version). */
  n: z.number().int().min(1),
  // The rules count characters (code points); a string's length counts UTF-16 units, up to two each.
  description: z.string().min(1).max(SKILL_DESCRIPTION_MAX * 2),
  instructions: z.string().min(1).max(SKILL_INSTRUCTIONS_MAX * 2),
  inputs: z.array(z.string().regex(SKILL_NAME)).max(SKILL_INPUTS_MAX),
  tools: z.array(z.string()),
  authorId: z.string(),
  authorName: z.string().max(200),
  at: z.number(),
  /** How it came to be when not written anew: `rollback to 1`, `import`. */
  note: z.string().max(200).optional(),
});

/** One skill of a guild. */
export const SkillSchema = z.looseObject({
  name: z.string().regex(SKILL_NAME),
  /** Who created it: under `/settings skills everyone`, the member who may change it besides moderators. */
  ownerId: z.string(),
  createdAt: z.number(),
  /** Roles that may run it; empty: everyone who may ask in the channel. */
  roles: z.array(z.string()).default([]),
  /** Oldest first; the last is the current one. */
  revisions: z.array(SkillRevisionSchema).min(1),
});

/** A guild's skills record (kept, even empty, once the guild had one: start-up then checks its commands). */
export const GuildSkillsSchema = z.looseObject({
  v: z.number().int().default(1),
  skills: z.array(SkillSchema).default([]),
});

/** Which skill a thread runs: what its follow-ups keep. */
export const ThreadSkillSchema = z.looseObject({
  v: z.number().int().default(1),
  guildId: z.string(),
  run: SkillRunSchema,
});

/** @see SkillSchema */
export type Skill = z.infer<typeof SkillSchema>;
/** @see SkillRevisionSchema */
export type SkillRevision = z.infer<typeof SkillRevisionSchema>;
