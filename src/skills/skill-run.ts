/**
 * A skill as one turn runs it: which skill and revision, its instructions with the member's inputs
 * already in them (quoted), the tools it may use (intersected with the member's at each step), and who
 * wrote it. Plain data: a turn's record keeps it (a turn waiting for approval resumes with it), and so
 * does the skill's thread, so its follow-ups keep the instructions it began with.
 */
import { z } from 'zod';

export const SkillRunSchema = z.object({
  name: z.string(),
  /** The revision it runs (numbered from 1); 0 for an operator's skill (SKILLS_DIR), which has none. */
  revision: z.number().int().min(0),
  /** The instructions with the inputs filled in. */
  instructions: z.string(),
  tools: z.array(z.string()).readonly(),
  /** Who wrote it: a moderator (their id and name then), or the bot's operator (SKILLS_DIR). */
  author: z.object({ id: z.string(), name: z.string() }).optional(),
  operator: z.boolean().optional(),
});

/** @see SkillRunSchema */
export type SkillRun = z.infer<typeof SkillRunSchema>;
