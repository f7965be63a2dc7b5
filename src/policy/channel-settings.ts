/**
 * Where a run happens, and the settings that follow from it: how much of each run a channel shows and
 * how many steps a run may take. Pure functions over a guild's settings record, shared by the turn
 * (what a run gets) and `/settings show` (what a moderator is told), so both always agree.
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

/** A value set per channel or category (channel first), and where it came from. */
export function placeValue<T>(byPlace: Readonly<Record<string, T>>, place: Pick<RunScope, 'channelId' | 'categoryId'>): { value: T; source: 'channel' | 'category' } | undefined {
  const own = byPlace[place.channelId];
  if (own !== undefined) return { value: own, source: 'channel' };
  const fromCategory = place.categoryId ? byPlace[place.categoryId] : undefined;
  return fromCategory !== undefined ? { value: fromCategory, source: 'category' } : undefined;
}

export interface ChannelSettings {
  display: DisplayLevel;
  displaySource: SettingSource;
  maxSteps: number;
  maxStepsSource: SettingSource;
}

/** The settings a run in `place` gets; `defaultSteps` is the bot's AGENT_MAX_STEPS. */
export function channelSettings(settings: Pick<GuildSettings, 'displayLevels' | 'stepLimit'>, place: Pick<RunScope, 'channelId' | 'categoryId'>, defaultSteps: number): ChannelSettings {
  const level = placeValue(settings.displayLevels, place);
  const known = level && DISPLAY_LEVELS.includes(level.value as DisplayLevel);
  return {
    display: known ? (level.value as DisplayLevel) : 'full',
    displaySource: known ? level.source : 'default',
    maxSteps: settings.stepLimit ?? defaultSteps,
    maxStepsSource: settings.stepLimit !== undefined ? 'server' : 'default',
  };
}

/** The built-in settings (outside a server, or when the guild's settings cannot be read). */
export function defaultChannelSettings(defaultSteps: number): ChannelSettings {
  return { display: 'full', displaySource: 'default', maxSteps: defaultSteps, maxStepsSource: 'default' };
}
