/**
 * The names a server's pages show for the ids in the bot's sentences and the audit log: channels and
 * roles from the server as the bot sees it, members as the page asks Discord for them (a few at most).
 */
import type { ConsoleDiscord, GuildInfo } from './discord-reads.js';
import type { MentionNames } from './markup.js';

/** Names for a server's mentions; `memberIds` are looked up (without spending the bot's REST budget). */
export async function namesFor(discord: ConsoleDiscord, guild: GuildInfo, memberIds: readonly string[] = []): Promise<MentionNames & { channels: Awaited<ReturnType<ConsoleDiscord['channels']>> }> {
  const [channels, members] = await Promise.all([discord.channels(guild.id), memberIds.length ? discord.memberNames(guild.id, [...new Set(memberIds)]).catch(() => new Map<string, string>()) : new Map<string, string>()]);
  const channelNames = new Map(channels.map((c) => [c.id, c.name]));
  const roleNames = new Map(guild.roles.map((r) => [r.id, r.name.replace(/^@/, '')]));
  return { channels, channel: (id) => channelNames.get(id), role: (id) => roleNames.get(id), member: (id) => members.get(id) };
}
