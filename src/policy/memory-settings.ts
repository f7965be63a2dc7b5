/**
 * Where memory is on: member memory (what members ask the bot to remember, and the tools `remember` and
 * `forget`) and past-thread search (`search_threads`), each set per channel, category or server by
 * moderators (`/settings memory`), with the precedence of the other per-place settings: channel >
 * category > server > the default, which is on for both. Off removes the prompt's memory block and the
 * tools there. Pure functions over a guild's settings record.
 */
import type { GuildSettings } from '../state/guild-settings-schema.js';
import { placeValue, type RunScope, type SettingSource } from './channel-settings.js';

/** The two memories a place can have on or off. */
export type MemoryKind = 'members' | 'threads';
export const MEMORY_KINDS: readonly MemoryKind[] = ['members', 'threads'];

/** The tools each memory brings: off in a place, they are not offered there. */
export const MEMORY_TOOLS: Readonly<Record<MemoryKind, readonly string[]>> = {
  members: ['remember', 'forget'],
  threads: ['search_threads'],
};

export interface MemorySettings {
  members: boolean;
  membersSource: SettingSource;
  threads: boolean;
  threadsSource: SettingSource;
}

/** Memory in `place`: on unless a moderator turned it off there (or above it). */
export function memorySettings(settings: Pick<GuildSettings, 'memory'>, place: Pick<RunScope, 'channelId' | 'categoryId' | 'guildId'>): MemorySettings {
  const members = placeValue(settings.memory?.members, place);
  const threads = placeValue(settings.memory?.threads, place);
  return {
    members: members?.value ?? true,
    membersSource: members?.source ?? 'default',
    threads: threads?.value ?? true,
    threadsSource: threads?.source ?? 'default',
  };
}

/** Memory where nothing can be read: off (a place a moderator turned it off in must not get it during an outage). */
export const MEMORY_UNREADABLE: MemorySettings = { members: false, membersSource: 'default', threads: false, threadsSource: 'default' };

/** `names` without the tools of the memories that are off. */
export function withoutMemoryOff(names: ReadonlySet<string>, memory: Pick<MemorySettings, MemoryKind>): ReadonlySet<string> {
  const off = MEMORY_KINDS.filter((kind) => !memory[kind]).flatMap((kind) => MEMORY_TOOLS[kind]);
  if (off.length === 0 || !off.some((tool) => names.has(tool))) return names;
  return new Set([...names].filter((name) => !off.includes(name)));
}

/**
 * The settings with memory `kinds` set to `on` at `placeKey` (a channel, a category or the server's own
 * id), or the setting removed there (`on` undefined: back to what applies above it).
 */
export function withMemorySetting(settings: GuildSettings, placeKey: string, kinds: readonly MemoryKind[], on: boolean | undefined): GuildSettings {
  const memory = { ...settings.memory };
  for (const kind of kinds) {
    const { [placeKey]: _old, ...others } = memory[kind] ?? {};
    memory[kind] = on === undefined ? others : { ...others, [placeKey]: on };
  }
  return { ...settings, memory };
}
