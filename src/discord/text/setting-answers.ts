/**
 * What a moderator reads after changing a setting, and why a value cannot be used, whether the change
 * came from `/settings` or from the web console: one wording, here once. The values offered are the
 * policy's (DISPLAY_LEVELS, ANSWER_MODES, SCHEDULE_ACCESS); this only checks a choice against them.
 */
import { ANSWER_MODES, DISPLAY_LEVELS, SCHEDULE_ACCESS, type AnswerMode, type DisplayLevel, type ScheduleAccess } from '../../policy/index.js';
import { PERSONA_MAX_CHARS } from '../../state/guild-settings-schema.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** The settings the console and `/settings` change alike. */
export type SettingKind = 'display' | 'model' | 'persona' | 'answers' | 'memory' | 'schedules';

const WHEN: Record<SettingKind, string> = {
  display: 'It applies from the next question.',
  model: "It applies from the next question; the answer's footer names the model.",
  persona: 'It applies from the next question. A persona shapes tone, language and focus; it never changes my tools, limits or safety rules.',
  answers: 'It applies from the next message.',
  memory: 'It applies from the next question.',
  schedules: "Each schedule's owner is checked again at its next run.",
};

/** What turning memory off means, after the answer. */
export const MEMORY_OFF_EFFECT = ' There, I use no member notes and offer no memory tools for it; notes are kept (members still see and remove theirs with /memory).';

/** The answer to a saved setting: done, when it applies, and the log channel's note. */
export function settingAnswer(kind: SettingKind, saved: { detail: string; logNote: string }, extra = ''): string {
  return `✅ Done: ${saved.detail}. ${WHEN[kind]}${extra}${saved.logNote}`;
}

/** A display level, or `default`; else why not. */
export function displayProblem(level: string): string | undefined {
  if (level === 'default' || DISPLAY_LEVELS.includes(level as DisplayLevel)) return undefined;
  return `Unknown display level \`${level.slice(0, TEXT_CAPS.typedWord)}\`: use ${DISPLAY_LEVELS.join(', ')} or default. Nothing was changed.`;
}

/** A persona too long to keep. */
export function personaProblem(text: string): string | undefined {
  return text.length > PERSONA_MAX_CHARS ? `A persona is at most ${PERSONA_MAX_CHARS} characters (this one is ${text.length}). Nothing was changed.` : undefined;
}

/** Where the bot answers, or `default`; `always` only with the Message Content intent. */
export function answersProblem(mode: string, messageContent: boolean): string | undefined {
  if (mode !== 'default' && !ANSWER_MODES.includes(mode as AnswerMode)) return `Unknown mode \`${mode.slice(0, TEXT_CAPS.typedId)}\`: use mention, always, off or default. Nothing was changed.`;
  if (mode === 'always' && !messageContent) {
    return 'I cannot answer every message: I run without the Message Content intent, so I only see messages that mention me. The bot\'s operator can turn it on (the Discord developer portal, then DISCORD_MESSAGE_CONTENT=true). Nothing was changed.';
  }
  return undefined;
}

/** Who may schedule questions. */
export function scheduleAccessProblem(who: string): string | undefined {
  return SCHEDULE_ACCESS.includes(who as ScheduleAccess) ? undefined : `Unknown choice \`${who.slice(0, TEXT_CAPS.typedWord)}\`: use off, moderators or everyone. Nothing was changed.`;
}

/** Memory on, off or back to the default, for both kinds or one. */
export function memoryProblem(state: string, what: string): string | undefined {
  return ['on', 'off', 'default'].includes(state) && ['both', 'members', 'threads'].includes(what) ? undefined : 'Use state on, off or default, and what both, members or threads. Nothing was changed.';
}
