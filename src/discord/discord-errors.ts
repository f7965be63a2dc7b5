/**
 * Discord API failures, in words a server member can act on. The codes are Discord's JSON error codes.
 */
import { DiscordAPIError, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

export const DiscordCode = {
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

/** A sentence for the thread or channel saying what went wrong with Discord and what to do. */
export function describeDiscordError(error: unknown, doing: string): string {
  switch (discordCode(error)) {
    case DiscordCode.MissingPermissions:
    case DiscordCode.MissingAccess:
      return `I could not ${doing}: I am missing a permission here. A moderator can grant me View Channel, Send Messages, Create Public Threads and Send Messages in Threads.`;
    case DiscordCode.ThreadLocked:
      return `I could not ${doing}: this thread is locked. Start a new /ask in the channel.`;
    case DiscordCode.ThreadArchived:
      return `I could not ${doing}: this thread is archived. Unarchive it or start a new /ask.`;
    default:
      return `I could not ${doing}: ${error instanceof Error ? error.message : String(error)}.`;
  }
}
