/**
 * Where a run happens, and the settings that follow from it: how much of each run a channel shows, how
 * many steps a run may take, which model answers and with what persona. Pure functions over a guild's
 * settings record, shared by the turn (what a run gets) and `/settings show` (what a moderator is
 * told), so both always agree. Per-place settings follow the precedence of tool rules:
 * channel > category > server > the bot's default.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';

/** Where a run happens and who started it: what tool policy and channel settings are decided from. */
export interface RunScope {
  /** null outside a server (a DM). */
  guildId: string | null;
  /** The channel whose rules apply: a thread's parent, or the channel itself. */
  channelId: string;
  /** The category of that channel, if any. */
  categoryId: string | null;
  userId: string;
  roleIds: readonly string[];
}

/** How much of each run the thread shows. */
export type DisplayLevel = 'full' | 'actions' | 'answer';
export const DISPLAY_LEVELS: readonly DisplayLevel[] = ['full', 'actions', 'answer'];

/** Which setting decided: one set for the channel, its category, the server, or the built-in default. */
export type SettingSource = 'channel' | 'category' | 'server' | 'default';

/**
 * A value set per channel, category or (keyed by the guild's own id) the whole server, most specific
 * first, and where it came from.
 */
export function placeValue<T>(
  byPlace: Readonly<Record<string, T>> | undefined,
  place: Pick<RunScope, 'channelId' | 'categoryId'> & { guildId?: string | null },
): { value: T; source: 'channel' | 'category' | 'server' } | undefined {
  if (!byPlace) return undefined;
  const own = byPlace[place.channelId];
  if (own !== undefined) return { value: own, source: 'channel' };
  const fromCategory = place.categoryId ? byPlace[place.categoryId] : undefined;
  if (fromCategory !== undefined) return { value: fromCategory, source: 'category' };
  const fromServer = place.guildId ? byPlace[place.guildId] : undefined;
  return fromServer !== undefined ? { value: fromServer, source: 'server' } : undefined;
}

export interface ChannelSettings {
  display: DisplayLevel;
  displaySource: SettingSource;
  maxSteps: number;
  maxStepsSource: SettingSource;
  /** The model that answers here. */
  model: string;
  modelSource: SettingSource;
  /** Moderators' extra instructions for this place, if any. */
  persona?: string;
  personaSource: SettingSource;
}

/** The bot's own values, for what no moderator has set. */
export interface ChannelDefaults {
  /** AGENT_MAX_STEPS. */
  maxSteps: number;
  /** OPENAI_MODEL. */
  model: string;
  /** The models moderators may choose (OPENAI_MODELS), or `*` for any; a stored model outside it is ignored. */
  models?: readonly string[] | '*';
}

type PlaceSettings = Pick<GuildSettings, 'displayLevels' | 'stepLimit' | 'models' | 'personas'>;

/** The settings a run in `place` gets. */
export function channelSettings(settings: PlaceSettings, place: Pick<RunScope, 'channelId' | 'categoryId' | 'guildId'>, defaults: ChannelDefaults): ChannelSettings {
  const level = placeValue(settings.displayLevels, place);
  const known = level && DISPLAY_LEVELS.includes(level.value as DisplayLevel);
  const model = placeValue(settings.models, place);
  // A model taken off OPENAI_MODELS since a moderator chose it falls back to the default, not to an error.
  const modelAllowed = model && modelIsAllowed(model.value, defaults);
  const persona = placeValue(settings.personas, place);
  return {
    display: known ? (level.value as DisplayLevel) : 'full',
    displaySource: known ? level.source : 'default',
    maxSteps: settings.stepLimit ?? defaults.maxSteps,
    maxStepsSource: settings.stepLimit !== undefined ? 'server' : 'default',
    model: modelAllowed ? model.value : defaults.model,
    modelSource: modelAllowed ? model.source : 'default',
    persona: persona?.value,
    personaSource: persona ? persona.source : 'default',
  };
}

/** Whether moderators may choose `model` (OPENAI_MODELS; the default model always). */
export function modelIsAllowed(model: string, defaults: Pick<ChannelDefaults, 'model' | 'models'>): boolean {
  return model === defaults.model || defaults.models === '*' || (defaults.models ?? []).includes(model);
}

/** The built-in settings (outside a server, or when the guild's settings cannot be read). */
export function defaultChannelSettings(defaults: ChannelDefaults): ChannelSettings {
  return {
    display: 'full',
    displaySource: 'default',
    maxSteps: defaults.maxSteps,
    maxStepsSource: 'default',
    model: defaults.model,
    modelSource: 'default',
    personaSource: 'default',
  };
}
