/**
 * Where the bot answers people who do not use `/ask`, set per channel, category or server by moderators
 * (`/settings answers`), with the precedence of the other per-place settings (channel > category >
 * server > the default):
 *
 * - `mention` (the default): a message that mentions the bot, or replies to it, is a question;
 * - `always`: every new message (a text channel) or every new post (a forum or media channel) is one
 *   (needs the Message Content intent);
 * - `off`: mentions are not answered there (slash commands still work where the tool rules allow).
 *
 * Pure functions over a guild's settings record.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';
import { placeValue, type RunScope, type SettingSource } from './channel-settings.js';

export type AnswerMode = 'mention' | 'always' | 'off';
export const ANSWER_MODES: readonly AnswerMode[] = ['mention', 'always', 'off'];
export const DEFAULT_ANSWER_MODE: AnswerMode = 'mention';

/** The answer mode in `place`, and which setting decided it. */
export function answerMode(settings: Pick<GuildSettings, 'answers'>, place: Pick<RunScope, 'channelId' | 'categoryId' | 'guildId'>): { mode: AnswerMode; source: SettingSource } {
  const set = placeValue(settings.answers, place);
  return set && ANSWER_MODES.includes(set.value) ? { mode: set.value, source: set.source } : { mode: DEFAULT_ANSWER_MODE, source: 'default' };
}

/** The settings with the answer mode at `placeKey` (a channel, a category or the server's own id) set, or removed (`undefined`). */
export function withAnswerMode(settings: GuildSettings, placeKey: string, mode: AnswerMode | undefined): GuildSettings {
  const { [placeKey]: _old, ...others } = settings.answers ?? {};
  return { ...settings, answers: mode === undefined ? others : { ...others, [placeKey]: mode } };
}
