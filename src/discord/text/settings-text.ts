/**
 * How the settings moderators change read in Discord: the words for each display level, answer mode,
 * kind of memory and who may schedule questions, and a place as its mention. The same words serve the
 * audit line a change writes (src/discord/rules/) and `/settings show`, so both say the same thing.
 */
import type { AnswerMode, DisplayLevel, MemoryKind, RuleTarget, ScheduleAccess, SkillAccess } from '../../policy/index.js';
import { describeTarget } from './rule-text.js';

/** What a channel shows of a run at each display level. */
export const LEVEL_WORDS: Record<DisplayLevel, string> = {
  full: 'every step (thoughts, tool calls, results)',
  actions: 'the tools I call, without thoughts or results',
  answer: 'only the answer',
};

/** Who may own scheduled questions, for each `/settings schedules` choice. */
export const SCHEDULE_WORDS: Record<ScheduleAccess, string> = {
  off: 'nobody (scheduled questions are off; existing ones pause at their next run)',
  moderators: 'moderators only (members with Manage Server)',
  everyone: 'every member',
};

/** Who may write skills, for each `/settings skills` choice. */
export const SKILL_WORDS: Record<SkillAccess, string> = {
  off: 'nobody (skills are off: none runs, and their commands leave this server until they are on again)',
  moderators: 'moderators only (members with Manage Server)',
  everyone: 'every member (each changes their own; moderators change any)',
};

/** What the bot answers without `/ask`, for each answer mode. */
export const ANSWER_WORDS: Record<AnswerMode, string> = {
  mention: 'messages that mention me, and replies to me',
  always: 'every new message (every new post in a forum)',
  off: 'nothing but slash commands',
};

/** The kinds of memory `/settings memory` turns on and off. */
export const MEMORY_KIND_WORDS: Record<MemoryKind, string> = { members: 'member memory', threads: 'past-thread search' };

/**
 * Where a per-place setting applies: a channel, a category, or (neither given) the whole server. The
 * same shape as a tool rule's target, without a role.
 */
export type SettingPlace = Pick<RuleTarget, 'channelId' | 'categoryId'>;

/** A place as it reads in an audit line: `<#id>`, `category <#id>`, `the whole server`. */
export function placeLabel(place: SettingPlace): string {
  return describeTarget(place);
}
