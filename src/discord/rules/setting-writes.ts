/**
 * The named writes of a guild's settings (`/settings`, the log channel of `/tools`; the web console
 * next): each takes the actor, saves its change with its audit entry in one update and posts the line
 * to the log channel, so no caller can change a setting without it. Each writes its own audit sentence,
 * so a change reads the same whoever made it and wherever. Values arrive checked by the caller against
 * what it offers (the models moderators may choose, the step range); the store's schema refuses the
 * rest, and then nothing is saved.
 */
import { cleanText } from '../../agent/clean-text.js';
import {
  withAnswerMode,
  withExemptRole,
  withLimitChange,
  withMemorySetting,
  type AnswerMode,
  type ChannelDefaults,
  type DisplayLevel,
  type LimitChange,
  type MemoryKind,
  type ScheduleAccess,
  type SkillAccess,
} from '../../policy/index.js';
import type { GuildSettings, UsageLimits } from '../../state/index.js';
import { describeLimitChange } from '../text/limits-text.js';
import { ANSWER_WORDS, LEVEL_WORDS, MEMORY_KIND_WORDS, placeLabel, SCHEDULE_WORDS, SKILL_WORDS, type SettingPlace } from '../text/settings-text.js';
import type { Actor, AuditTrail, Written } from './audit-trail.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** A change at a place: `null` removes what was set there (back to the broader setting or the default). */
type AtPlace<K extends string, V> = { place: SettingPlace } & Record<K, V | null>;

/** The named writes of the settings, each audited (see the file's comment). */
export interface SettingWrites {
  /** How much of each run a channel or category shows. */
  setDisplay(guildId: string, actor: Actor, change: AtPlace<'level', DisplayLevel>): Promise<Written>;
  /** The server's step limit per question (`null`: the bot's default). */
  setStepLimit(guildId: string, actor: Actor, limit: number | null): Promise<Written>;
  /** Which model answers at a place. */
  setModel(guildId: string, actor: Actor, change: AtPlace<'model', string>): Promise<Written>;
  /** The persona at a place (its text is cleaned here, whoever sends it). */
  setPersona(guildId: string, actor: Actor, change: AtPlace<'text', string>): Promise<Written>;
  /** Where the bot answers without `/ask`. */
  setAnswers(guildId: string, actor: Actor, change: AtPlace<'mode', AnswerMode>): Promise<Written>;
  /** Member memory and past-thread search on or off at a place. */
  setMemory(guildId: string, actor: Actor, change: AtPlace<'on', boolean> & { kinds: readonly MemoryKind[] }): Promise<Written>;
  /** Who may own scheduled questions. */
  setScheduleAccess(guildId: string, actor: Actor, who: ScheduleAccess): Promise<Written>;
  /** Who may write skills (`off`: none runs here). */
  setSkillAccess(guildId: string, actor: Actor, who: SkillAccess): Promise<Written>;
  /** Usage limits: a number sets one (0 = no limit), `null` goes back to the default; audited as a reset when every value is `null`. */
  setLimits(guildId: string, actor: Actor, change: LimitChange): Promise<Written>;
  /** A role exempt from member limits, or no longer. */
  setLimitExemption(guildId: string, actor: Actor, change: { roleId: string; exempt: boolean }): Promise<Written>;
  /** Where every change is posted (`null`: nowhere; the clearing itself is posted to the old channel). */
  setLogChannel(guildId: string, actor: Actor, channelId: string | null): Promise<Written>;
}

/** The key a per-place setting is stored under: the channel's or category's id, the guild's for the whole server. */
const keyOf = (guildId: string, place: SettingPlace) => place.channelId ?? place.categoryId ?? guildId;

/** A map of per-place values with `key` set or removed; the field is dropped when it ends up empty. */
function withPlaceValue(settings: GuildSettings, field: 'models' | 'personas', key: string, value: string | null): GuildSettings {
  const { [key]: _old, ...others } = settings[field] ?? {};
  const values = value === null ? others : { ...others, [key]: value };
  const rest: GuildSettings = { ...settings };
  delete rest[field];
  return Object.keys(values).length ? { ...rest, [field]: values } : rest;
}

/** The setting writes over the audit trail; the defaults name what a reset goes back to. */
export function createSettingWrites(trail: AuditTrail, deps: { channelDefaults: Pick<ChannelDefaults, 'maxSteps' | 'model'>; defaultLimits: UsageLimits }): SettingWrites {
  return {
    setDisplay(guildId, actor, { place, level }) {
      const where = place.categoryId && !place.channelId ? `${placeLabel(place)} (channels without their own level)` : placeLabel(place);
      const detail = level === null ? `reset the display level in ${where} to the default` : `set the display level in ${where} to \`${level}\` (${LEVEL_WORDS[level]})`;
      const key = keyOf(guildId, place);
      return trail.change(guildId, actor, { action: 'settings.display', detail }, (s) => {
        const { [key]: _old, ...others } = s.displayLevels;
        return { ...s, displayLevels: level === null ? others : { ...others, [key]: level } };
      });
    },
    setStepLimit(guildId, actor, limit) {
      const detail = limit === null
        ? `reset the step limit to the bot's default (${deps.channelDefaults.maxSteps})`
        : `set the step limit to ${limit} step${limit === 1 ? '' : 's'} per question`;
      return trail.change(guildId, actor, { action: 'settings.step-limit', detail }, (s) => {
        const { stepLimit: _old, ...rest } = s;
        return limit === null ? rest : { ...rest, stepLimit: limit };
      });
    },
    setModel(guildId, actor, { place, model }) {
      const detail = model === null ? `reset the model in ${placeLabel(place)} to the default (\`${deps.channelDefaults.model}\`)` : `set the model in ${placeLabel(place)} to \`${model}\``;
      return trail.change(guildId, actor, { action: 'settings.model', detail }, (s) => withPlaceValue(s, 'models', keyOf(guildId, place), model));
    },
    setPersona(guildId, actor, { place, text }) {
      // Persona text is a member's words the model reads: cleaned at the door, whoever sends it.
      const clean = text === null ? null : cleanText(text).trim();
      const quoted = clean !== null && clean.length > TEXT_CAPS.personaQuoted ? `${clean.slice(0, TEXT_CAPS.personaQuoted - 1)}…` : clean;
      const detail = quoted === null ? `removed the persona in ${placeLabel(place)}` : `set the persona in ${placeLabel(place)} to “${quoted.replace(/\n/g, ' ')}”`;
      return trail.change(guildId, actor, { action: 'settings.persona', detail }, (s) => withPlaceValue(s, 'personas', keyOf(guildId, place), clean));
    },
    setAnswers(guildId, actor, { place, mode }) {
      const detail = mode === null ? `reset where I answer in ${placeLabel(place)} to the default (mentions)` : `set where I answer in ${placeLabel(place)} to \`${mode}\` (${ANSWER_WORDS[mode]})`;
      return trail.change(guildId, actor, { action: 'settings.answers', detail }, (s) => withAnswerMode(s, keyOf(guildId, place), mode ?? undefined));
    },
    setMemory(guildId, actor, { place, kinds, on }) {
      const words = kinds.map((k) => MEMORY_KIND_WORDS[k]).join(' and ');
      const detail = on === null ? `reset ${words} in ${placeLabel(place)} to the default (on)` : `turned ${words} ${on ? 'on' : 'off'} in ${placeLabel(place)}`;
      return trail.change(guildId, actor, { action: 'settings.memory', detail }, (s) => withMemorySetting(s, keyOf(guildId, place), kinds, on ?? undefined));
    },
    setScheduleAccess(guildId, actor, who) {
      const detail = `set who may schedule questions to \`${who}\`: ${SCHEDULE_WORDS[who]}`;
      return trail.change(guildId, actor, { action: 'settings.schedules', detail }, (s) => ({ ...s, schedules: who }));
    },
    setSkillAccess(guildId, actor, who) {
      const detail = `set who may write skills to \`${who}\`: ${SKILL_WORDS[who]}`;
      return trail.change(guildId, actor, { action: 'settings.skills', detail }, (s) => ({ ...s, skills: who }));
    },
    setLimits(guildId, actor, change) {
      const reset = Object.values(change).every((value) => value === null);
      const detail = describeLimitChange(change, deps.defaultLimits);
      return trail.change(guildId, actor, { action: `settings.limits.${reset ? 'reset' : 'set'}`, detail }, (s) => withLimitChange(s, change));
    },
    setLimitExemption(guildId, actor, { roleId, exempt }) {
      const detail = exempt ? `exempted <@&${roleId}> from member usage limits` : `ended the exemption of <@&${roleId}> from member usage limits`;
      return trail.change(guildId, actor, { action: `settings.limits.${exempt ? 'exempt' : 'unexempt'}`, detail }, (s) => withExemptRole(s, roleId, exempt));
    },
    setLogChannel(guildId, actor, channelId) {
      const detail = channelId ? `set the moderation log channel to <#${channelId}>` : 'cleared the moderation log channel';
      return trail.change(guildId, actor, { action: 'tools.log-channel', detail }, (s) => {
        const { logChannelId: _old, ...rest } = s;
        return channelId ? { ...rest, logChannelId: channelId } : rest;
      });
    },
  };
}
