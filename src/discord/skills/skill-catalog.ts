/**
 * The skills of a server, wherever they come from: the operator's (SKILLS_DIR, read-only, every server)
 * first, then the server's own (the store), oldest first. One view of a skill for every reader: the
 * commands, the registrar, schedules and the turn that runs it.
 */
import type { OperatorSkill, SkillRun } from '../../skills/index.js';
import { fillInstructions } from '../../skills/index.js';
import type { Skill, SkillStore } from '../../state/index.js';

/** A skill as it is now. */
export interface SkillView {
  name: string;
  description: string;
  instructions: string;
  inputs: readonly string[];
  tools: readonly string[];
  /** Roles that may run it (empty: everyone who may ask). */
  roles: readonly string[];
  /** The server's own (with its stored record and revisions), or the operator's (with its file). */
  source: { kind: 'server'; stored: Skill } | { kind: 'operator'; file: string };
  /** The current revision's number (0 for an operator's skill) and author. */
  revision: number;
  author?: { id: string; name: string };
}

export interface SkillCatalog {
  /** The operator's skills, then the server's, oldest first. Throws when the store cannot be read. */
  list(guildId: string): Promise<SkillView[]>;
  find(guildId: string, name: string): Promise<SkillView | undefined>;
  /** The operator's skills (SKILLS_DIR). */
  readonly operator: readonly OperatorSkill[];
}

/** A stored skill's current version as a view. */
export function viewOf(stored: Skill): SkillView {
  const current = stored.revisions.at(-1)!;
  return {
    name: stored.name, description: current.description, instructions: current.instructions, inputs: current.inputs, tools: current.tools,
    roles: stored.roles, source: { kind: 'server', stored }, revision: current.n, author: { id: current.authorId, name: current.authorName },
  };
}

export function createSkillCatalog(store: Pick<SkillStore, 'list'>, operator: readonly OperatorSkill[]): SkillCatalog {
  const operatorViews: SkillView[] = operator.map(({ skill, file }) => ({ ...skill, roles: [], source: { kind: 'operator', file }, revision: 0 }));
  const list = async (guildId: string) => {
    const own = (await store.list(guildId)).filter((s) => !operatorViews.some((o) => o.name === s.name));
    return [...operatorViews, ...own.map(viewOf)];
  };
  return {
    list,
    async find(guildId, name) {
      return (await list(guildId)).find((s) => s.name === name);
    },
    operator,
  };
}

/** The skill as a turn runs it: the member's inputs filled into its instructions, quoted. */
export function skillRunOf(skill: SkillView, values: readonly string[]): SkillRun {
  return {
    name: skill.name,
    revision: skill.revision,
    instructions: fillInstructions(skill.instructions, skill.inputs, values),
    tools: [...skill.tools],
    ...(skill.source.kind === 'operator' ? { operator: true } : { author: skill.author! }),
  };
}
