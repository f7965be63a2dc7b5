/**
 * Members as the bot reads and writes them. Read: where one asks (the run scope: their roles, and the
 * channel whose rules apply) and their name, the same way for slash commands, buttons and messages.
 * Written: mention syntax as plain words, for text where Discord would show a mention or where it reads
 * as a ping (a thread named from a question: `@everyone <@&id>` pings nobody there, but reads as if it
 * did), with names from the guild's cache when it has them (cheap, no request) and a neutral word
 * otherwise; and what every message the bot posts says of mentions: none pings.
 */
import type { APIInteractionGuildMember, Channel, CommandInteraction, Guild, GuildMember, Interaction, Message } from 'discord.js';
import { cleanText } from '../agent/clean-text.js';
import type { RunScope } from '../policy/index.js';
import { graphemeBoundary } from '../agent/text-caps.js';

/** Never ping anyone, whatever the model writes (`@everyone`, role or user mentions). */
export const NO_MENTIONS = { parse: [] as never[], repliedUser: false };

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

/** Where one asks: the guild, the channel whose rules apply, the member and their roles (none in DMs). */
export function scopeOf(source: Interaction | CommandInteraction | Message, member: AnyMember): RunScope {
  const user = 'author' in source ? source.author : source.user;
  return { guildId: source.guildId, ...ruleChannel(source.channel), userId: user.id, roleIds: roleIdsOf(member) };
}

/** Names for ids, where known (a lookup in the guild's cache; undefined when not cached). */
export interface MentionNames {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/** No names known: every mention gets its neutral word. */
export const NO_NAMES: MentionNames = { user: () => undefined, role: () => undefined, channel: () => undefined };

/** Names for mentions from a guild's caches: no request, and a neutral word where a name is not cached. */
export function cachedMentionNames(guild: Guild | null | undefined): MentionNames {
  if (!guild) return NO_NAMES;
  return {
    user: (id) => guild.members.cache.get(id)?.displayName ?? guild.client.users.cache.get(id)?.displayName,
    role: (id) => guild.roles.cache.get(id)?.name,
    channel: (id) => guild.channels.cache.get(id)?.name,
  };
}

/** Mention syntax Discord reads in message text: members, roles, channels, slash commands. */
const MENTION = /<(@!?|@&|#)(\d+)>|<\/([-_\p{L}\p{N} ]{1,98}):\d+>/gu;
/** `@everyone` and `@here`, which Discord reads anywhere in a message. */
const MASS_MENTION = /@(everyone|here)\b/g;

/** `text` with every mention written as a plain word: `everyone`, `@Alice` (or `@user`), `@Moderators` (or `@role`), `#general` (or `#channel`). */
export function plainMentions(text: string, names: MentionNames): string {
  // A name may itself start with @ or # (the @everyone role is called "@everyone"): one sign is enough.
  const named = (name: string | undefined, fallback: string) => (name?.replace(/^[@#]+/, '').trim() || fallback);
  const words = text.replace(MENTION, (_whole, kind: string | undefined, id: string | undefined, command: string | undefined) => {
    if (command !== undefined) return `/${command}`;
    if (kind === '#') return `#${named(names.channel(id!), 'channel')}`;
    if (kind === '@&') return `@${named(names.role(id!), 'role')}`;
    return `@${named(names.user(id!), 'user')}`;
  });
  // Last, so a name that reads "@everyone" is rendered as a word too.
  return words.replace(MASS_MENTION, '$1');
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
