/** Each guild's skills and their revisions, and which skill each skill thread runs. */
export { createSkillStore, type RevisionDraft, type SkillStore } from './skill-store.js';
export { SkillSchema, SkillRevisionSchema, type Skill, type SkillRevision } from './skill-schema.js';
