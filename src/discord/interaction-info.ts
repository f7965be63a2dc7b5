/**
 * Facts about where an interaction or message happened and who sent it, read the same way for
 * slash commands, buttons and messages: the run scope (for tool policy and channel settings) and names.
 */
import type { Channel, Guild, GuildMember, Interaction, Message } from 'discord.js';
import type { APIInteractionGuildMember } from 'discord.js';
import { cleanText } from '../agent/clean-text.js';
import type { RunScope } from '../policy/index.js';
import { NO_NAMES, plainMentions, type MentionNames } from './posting/mention-words.js';
import { graphemeBoundary } from './posting/split-message.js';

type AnyMember = GuildMember | APIInteractionGuildMember | null | undefined;

export function roleIdsOf(member: AnyMember): string[] {
  if (!member) return [];
  if (Array.isArray(member.roles)) return member.roles;
  return [...(member as GuildMember).roles.cache.keys()];
}

export function displayNameOf(member: AnyMember, user: { displayName?: string; username: string }): string {
  if (member && 'displayName' in member && typeof member.displayName === 'string') return member.displayName;
  const api = member as APIInteractionGuildMember | null | undefined;
  return api?.nick ?? user.displayName ?? user.username;
}

/** The channel whose rules apply: a thread's parent, or the channel itself. */
export function ruleChannel(channel: Channel | null): { channelId: string; categoryId: string | null } {
  if (!channel) return { channelId: 'unknown', categoryId: null };
  if (channel.isThread()) {
    const parent = channel.parent;
    return { channelId: channel.parentId ?? channel.id, categoryId: parent?.parentId ?? null };
  }
  return { channelId: channel.id, categoryId: 'parentId' in channel ? (channel.parentId ?? null) : null };
}

export function scopeOf(source: Interaction | Message, member: AnyMember): RunScope {
  const user = 'author' in source ? source.author : source.user;
  return { guildId: source.guildId, ...ruleChannel(source.channel), userId: user.id, roleIds: roleIdsOf(member) };
}

/**
 * A thread name from the question: one line, mentions as plain words (`names` from the guild's cache),
 * at most 100 characters, cut at a word.
 */
export function threadName(question: string, names: MentionNames = NO_NAMES): string {
  const line = plainMentions(cleanText(question), names).replace(/\s+/g, ' ').trim() || 'Question';
  if (line.length <= 100) return line;
  const cut = line.slice(0, graphemeBoundary(line, 99));
  const space = cut.lastIndexOf(' ');
  return `${space > 60 ? cut.slice(0, space) : cut}…`;
}

/** Names for mentions from a guild's caches: no request, and a neutral word where a name is not cached. */
export function cachedMentionNames(guild: Guild | null | undefined): MentionNames {
  if (!guild) return NO_NAMES;
  return {
    user: (id) => guild.members.cache.get(id)?.displayName ?? guild.client.users.cache.get(id)?.displayName,
    role: (id) => guild.roles.cache.get(id)?.name,
    channel: (id) => guild.channels.cache.get(id)?.name,
  };
}
