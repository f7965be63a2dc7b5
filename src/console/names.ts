/**
 * The names a server's pages show for the ids in the bot's sentences and the audit log: channels and
 * roles from the server as the bot sees it, members as the page asks Discord for them (a few at most).
 */
import type { ConsoleDiscord, GuildInfo } from './discord-reads.js';
import type { MentionNames } from './markup.js';

/** Names for a server's mentions; `memberIds` are looked up now (at most 25). */
export async function namesFor(discord: ConsoleDiscord, guild: GuildInfo, memberIds: readonly string[] = []): Promise<MentionNames & { channels: Awaited<ReturnType<ConsoleDiscord['channels']>> }> {
  const channels = await discord.channels(guild.id);
  const members = new Map<string, string>();
  await Promise.all([...new Set(memberIds)].slice(0, 25).map(async (id) => {
    const member = await discord.member(guild.id, id).catch(() => undefined);
    if (member?.name) members.set(id, member.name);
  }));
  const channelNames = new Map(channels.map((c) => [c.id, c.name]));
  const roleNames = new Map(guild.roles.map((r) => [r.id, r.name.replace(/^@/, '')]));
  return { channels, channel: (id) => channelNames.get(id), role: (id) => roleNames.get(id), member: (id) => members.get(id) };
}
