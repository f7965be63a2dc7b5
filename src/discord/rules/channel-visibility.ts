/**
 * Who may see a channel, for what was said in it: a knowledge passage taken from a channel's message is
 * shown only to members with View Channel there. Read from discord.js's caches, with one fetch for a
 * member or channel not cached yet; anything that cannot be read counts as "cannot view".
 */
import { PermissionFlagsBits, type Client, type Guild, type GuildMember } from 'discord.js';

/** Whether a member may view a channel; what `search_knowledge` and `/kb search` ask per channel. */
export type ChannelViewer = (channelId: string) => Promise<boolean>;

/** The channel viewer of `userId` in `guild` (no guild: nothing channel-bound is visible). */
export function channelViewer(guild: Guild | null | undefined, userId: string): ChannelViewer {
  let member: Promise<GuildMember | undefined> | undefined;
  const memberOf = (g: Guild) => (member ??= g.members.fetch(userId).catch(() => undefined));
  return async (channelId) => {
    if (!guild) return false;
    const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
    const who = guild.members.cache.get(userId) ?? (await memberOf(guild));
    if (!channel || !who) return false;
    return channel.permissionsFor(who).has(PermissionFlagsBits.ViewChannel);
  };
}


/** Whether @everyone lacks View Channel in a channel: only some members can read it. Unknown: true. */
export async function isRestrictedChannel(guild: Guild, channelId: string): Promise<boolean> {
  const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
  if (!channel) return true;
  return !channel.permissionsFor(guild.roles.everyone).has(PermissionFlagsBits.ViewChannel);
}

/**
 * What a run may quote from a channel: every member it answers can view that channel, and a channel only
 * some members can read is quoted only in its own threads. Otherwise a moderator's question in a public
 * thread would put a mods-only passage where everyone reads the answer.
 */
export function runAudienceViewer(client: Client, guildId: string | null | undefined, askerIds: readonly string[], postedIn: string): ChannelViewer {
  const guild = guildId ? client.guilds.cache.get(guildId) : undefined;
  const viewers = askerIds.map((id) => channelViewer(guild, id));
  return async (channelId) => {
    if (!guild) return false;
    for (const canView of viewers) if (!(await canView(channelId))) return false;
    return channelId === postedIn || !(await isRestrictedChannel(guild, channelId));
  };
}
