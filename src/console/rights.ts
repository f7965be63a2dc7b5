/**
 * Who may manage a server in the console: the member as Discord has them now (asked at every request:
 * someone who left, lost a role or whose role lost the permission is refused at once), with Manage Server
 * there (or Administrator, or owning it), the same right the moderation commands are registered with.
 * The servers a member listed at sign-in only say where to look: a right never comes from that list.
 */
import { PermissionFlagsBits } from 'discord.js';
import type { ConsoleDiscord, GuildInfo, MemberInfo } from './discord-reads.js';

/** What a request may act on: the server, and the member as they are there now. */
export interface GuildAccess {
  guild: GuildInfo;
  member: MemberInfo;
}

/** Whether the member may manage the server: its owner, or a role (@everyone included) with Administrator or Manage Server. */
export function managesServer(guild: GuildInfo, member: MemberInfo, userId: string): boolean {
  if (guild.ownerId === userId) return true;
  const held = new Set([guild.id, ...member.roles]);
  const bits = guild.roles.filter((r) => held.has(r.id)).reduce((all, r) => all | r.permissions, 0n);
  return (bits & (PermissionFlagsBits.Administrator | PermissionFlagsBits.ManageGuild)) !== 0n;
}

/** The member's access to a server now: granted, or why not (the bot is not there, they are not a member, or not a manager). */
export async function accessTo(discord: ConsoleDiscord, userId: string, guildId: string): Promise<{ ok: true; access: GuildAccess } | { ok: false; why: 'no-bot' | 'not-member' | 'no-right' }> {
  if (!/^\d{17,20}$/.test(guildId) || !(await discord.botGuildIds()).has(guildId)) return { ok: false, why: 'no-bot' };
  const [guild, member] = await Promise.all([discord.guild(guildId), discord.member(guildId, userId)]);
  if (!guild) return { ok: false, why: 'no-bot' };
  if (!member) return { ok: false, why: 'not-member' };
  if (!managesServer(guild, member, userId)) return { ok: false, why: 'no-right' };
  return { ok: true, access: { guild, member } };
}

/** The servers, of those the member listed, that the bot is in and the member manages now. */
export async function manageableGuilds(discord: ConsoleDiscord, userId: string, guildIds: readonly string[]): Promise<GuildInfo[]> {
  const checked = await Promise.all(guildIds.map((id) => accessTo(discord, userId, id)));
  return checked.flatMap((c) => (c.ok ? [c.access.guild] : [])).sort((a, b) => a.name.localeCompare(b.name));
}
