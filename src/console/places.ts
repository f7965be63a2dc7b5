/**
 * The places of a server the console's rules and settings name: the whole server, its categories and
 * its text and forum channels, in Discord's order, each with the scope the policy reads it by and the
 * target a change there is written to (the same shapes `/tools` and `/settings` use).
 */
import type { RuleTarget } from '../policy/index.js';
import type { ChannelInfo } from './discord-reads.js';

/** A place, as a column of the tool table and an option of a form's `scope`. */
export interface Place {
  /** The form value: `guild`, or the channel's or category's id. */
  value: string;
  label: string;
  /** How the policy reads it (no role: what @everyone gets). */
  scope: { guildId: string; channelId: string; categoryId: string | null; roleIds: readonly string[] };
  /** Where a change is written: nothing (the server), `{ categoryId }` or `{ channelId }`. */
  target: Pick<RuleTarget, 'channelId' | 'categoryId'>;
}

/** The server's places, the server first, then each category followed by its channels, then channels outside any. */
export function placesOf(guildId: string, channels: readonly ChannelInfo[]): Place[] {
  const byPosition = (a: ChannelInfo, b: ChannelInfo) => a.position - b.position || a.name.localeCompare(b.name);
  const categories = channels.filter((c) => c.kind === 'category').sort(byPosition);
  const rooms = channels.filter((c) => c.kind !== 'category').sort(byPosition);
  const room = (c: ChannelInfo): Place => ({ value: c.id, label: `#${c.name}`, scope: { guildId, channelId: c.id, categoryId: c.parentId, roleIds: [] }, target: { channelId: c.id } });
  const places: Place[] = [{ value: 'guild', label: 'Whole server', scope: { guildId, channelId: '', categoryId: null, roleIds: [] }, target: {} }];
  for (const category of categories) {
    places.push({ value: category.id, label: `Category ${category.name}`, scope: { guildId, channelId: '', categoryId: category.id, roleIds: [] }, target: { categoryId: category.id } });
    places.push(...rooms.filter((c) => c.parentId === category.id).map(room));
  }
  places.push(...rooms.filter((c) => !categories.some((k) => k.id === c.parentId)).map(room));
  return places;
}

/** The place a form's `scope` names, if it is one of the server's. */
export function placeNamed(places: readonly Place[], value: unknown): Place | undefined {
  return typeof value === 'string' ? places.find((p) => p.value === value) : undefined;
}
