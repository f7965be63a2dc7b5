/**
 * Permission bits and Discord's permission algorithm (base from roles, then @everyone, role and member
 * overwrites, then the implicit denials), enough to decide when the REST API answers 403.
 */
import type { FakeChannel, FakeGuild, FakeMember, FakeRole } from './records.js';

/** Permission flags by their discord.js names (same values as `PermissionFlagsBits`). */
export const Permission = {
  CreateInstantInvite: 1n << 0n,
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewAuditLog: 1n << 7n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  SendTTSMessages: 1n << 12n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  ChangeNickname: 1n << 26n,
  ManageNicknames: 1n << 27n,
  ManageRoles: 1n << 28n,
  ManageWebhooks: 1n << 29n,
  UseApplicationCommands: 1n << 31n,
  ManageThreads: 1n << 34n,
  CreatePublicThreads: 1n << 35n,
  CreatePrivateThreads: 1n << 36n,
  UseExternalStickers: 1n << 37n,
  SendMessagesInThreads: 1n << 38n,
  ModerateMembers: 1n << 40n,
} as const;

export type PermissionName = keyof typeof Permission;

/** A permission set given by names or as a raw bitfield. */
export type PermissionInput = PermissionName[] | bigint;

export const ALL_PERMISSIONS: bigint = (1n << 51n) - 1n;

/** What Discord gives @everyone in a new guild (the parts that matter here). */
export const DEFAULT_EVERYONE_PERMISSIONS = bits([
  'CreateInstantInvite', 'AddReactions', 'ViewChannel', 'SendMessages', 'EmbedLinks', 'AttachFiles',
  'ReadMessageHistory', 'UseExternalEmojis', 'ChangeNickname', 'UseApplicationCommands',
  'CreatePublicThreads', 'CreatePrivateThreads', 'UseExternalStickers', 'SendMessagesInThreads',
]);

/** What a typical bot invite grants its managed role. */
export const DEFAULT_BOT_PERMISSIONS = bits([
  'ViewChannel', 'SendMessages', 'SendMessagesInThreads', 'CreatePublicThreads', 'EmbedLinks',
  'AttachFiles', 'ReadMessageHistory', 'MentionEveryone', 'AddReactions', 'UseExternalEmojis',
]);

/**
 * What the bot may do in a DM with a user. The docs list ATTACH_FILES, EMBED_LINKS, MENTION_EVERYONE and
 * USE_EXTERNAL_EMOJIS in `app_permissions` for DMs with the bot (interactions/receiving-and-responding.mdx,
 * Interaction Structure, note ***); reading, sending and reacting are implied by the DM itself.
 */
export const DM_PERMISSIONS = bits([
  'ViewChannel', 'SendMessages', 'ReadMessageHistory', 'AttachFiles', 'EmbedLinks', 'MentionEveryone',
  'UseExternalEmojis', 'AddReactions',
]);

export function bits(input: PermissionInput): bigint {
  if (typeof input === 'bigint') return input;
  return input.reduce((acc, name) => acc | Permission[name], 0n);
}

/** Names of the set bits, for messages and dumps. */
export function namesOf(value: bigint): PermissionName[] {
  return (Object.keys(Permission) as PermissionName[]).filter((n) => (value & Permission[n]) !== 0n);
}

export interface PermissionWorld {
  guild: FakeGuild;
  member: FakeMember | undefined;
  roles: (id: string) => FakeRole | undefined;
}

/** Guild-level permissions: @everyone plus the member's roles; owners and administrators get all. */
export function basePermissions({ guild, member, roles }: PermissionWorld): bigint {
  if (!member) return 0n;
  if (member.userId === guild.ownerId) return ALL_PERMISSIONS;
  let p = roles(guild.everyoneRoleId)?.permissions ?? 0n;
  for (const id of member.roles) p |= roles(id)?.permissions ?? 0n;
  return (p & Permission.Administrator) !== 0n ? ALL_PERMISSIONS : p;
}

/**
 * Permissions of a member in a (non-thread) channel. Threads inherit their parent's: pass the parent.
 * `forThread` applies the implicit denials of thread sending rather than channel sending.
 */
export function channelPermissions(world: PermissionWorld, channel: FakeChannel, forThread = false): bigint {
  const base = basePermissions(world);
  if (base === ALL_PERMISSIONS) return ALL_PERMISSIONS;
  const { guild, member } = world;
  if (!member) return 0n;
  let p = base;
  const everyone = channel.overwrites.find((o) => o.id === guild.everyoneRoleId);
  if (everyone) p = (p & ~everyone.deny) | everyone.allow;
  let allow = 0n;
  let deny = 0n;
  for (const o of channel.overwrites) {
    if (o.type === 0 && member.roles.includes(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  p = (p & ~deny) | allow;
  const own = channel.overwrites.find((o) => o.type === 1 && o.id === member.userId);
  if (own) p = (p & ~own.deny) | own.allow;
  if ((p & Permission.ViewChannel) === 0n) return 0n;
  const send = forThread ? Permission.SendMessagesInThreads : Permission.SendMessages;
  if ((p & send) === 0n) {
    p &= ~(Permission.SendTTSMessages | Permission.MentionEveryone | Permission.EmbedLinks | Permission.AttachFiles);
  }
  return p;
}
