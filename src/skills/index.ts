/** Skills: a server's own commands, written by its moderators (issue 45). The vocabulary: what a skill may be, its inputs, its file. */
export * from './skill-rules.js';
export * from './skill-inputs.js';
export * from './skill-md.js';
export * from './skill-run.js';
export { loadSkillsDir, type OperatorSkill } from './skills-dir.js';
