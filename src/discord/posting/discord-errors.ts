/**
 * Discord API failures, in words a server member can act on. The codes are Discord's JSON error codes.
 */
import { DiscordAPIError, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

export const DiscordCode = {
  UnknownChannel: 10003,
  UnknownInteraction: 10062,
  MissingAccess: 50001,
  MissingPermissions: 50013,
  ThreadArchived: 50083,
  ThreadLocked: 160005,
} as const;

export function discordCode(error: unknown): number | undefined {
  return error instanceof DiscordAPIError && typeof error.code === 'number' ? error.code : undefined;
}

/** Human names of the permissions the bot needs, for messages. */
export const PERMISSION_NAMES: Record<string, bigint> = {
  'View Channel': PermissionFlagsBits.ViewChannel,
  'Send Messages': PermissionFlagsBits.SendMessages,
  'Create Public Threads': PermissionFlagsBits.CreatePublicThreads,
  'Send Messages in Threads': PermissionFlagsBits.SendMessagesInThreads,
  'Read Message History': PermissionFlagsBits.ReadMessageHistory,
  'Attach Files': PermissionFlagsBits.AttachFiles,
};

/** Which of `needed` the bot lacks, by name. */
export function missingPermissions(have: Readonly<PermissionsBitField> | null | undefined, needed: string[]): string[] {
  if (!have) return [];
  return needed.filter((name) => !have.has(PERMISSION_NAMES[name]!));
}

/** "the Send Messages in Threads permission", "the View Channel and Attach Files permissions". */
export function permissionList(names: readonly string[]): string {
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  return `the ${list} permission${names.length > 1 ? 's' : ''}`;
}

/** What to say when the bot lacks permissions it checked: which ones, and who can fix it. */
export function missingPermissionsSentence(missing: readonly string[], doing: string): string {
  return `I cannot ${doing}: I am missing ${permissionList(missing)} here. A moderator can grant ${missing.length > 1 ? 'them' : 'it'} in the channel's permissions.`;
}

/**
 * A sentence for the thread or channel saying what went wrong with Discord and what to do. `missing`:
 * the permissions the bot lacks where it acted, when the caller could check; they are named.
 */
export function describeDiscordError(error: unknown, doing: string, missing?: readonly string[]): string {
  switch (discordCode(error)) {
    case DiscordCode.MissingPermissions:
    case DiscordCode.MissingAccess:
      if (missing && missing.length > 0) return missingPermissionsSentence(missing, doing).replace(/^I cannot/, 'I could not');
      return `I could not ${doing}: Discord refused it for lack of a permission, though I seem to have the ones I need (View Channel, Send Messages, Send Messages in Threads). A moderator can check the channel's and the thread's permission overrides for me.`;
    case DiscordCode.ThreadLocked:
      return `I could not ${doing}: this thread is locked. Start a new /ask in the channel.`;
    case DiscordCode.ThreadArchived:
      return `I could not ${doing}: this thread is archived. Unarchive it or start a new /ask.`;
    default:
      return `I could not ${doing}: ${error instanceof Error ? error.message : String(error)}.`;
  }
}
