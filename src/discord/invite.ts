/**
 * The permissions the bot needs in a server and the invite link that asks for exactly those, so the
 * README, the start-up log and the code agree (the integer is computed, never typed by hand).
 */
import { OAuth2Scopes, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

/** What the bot does with each: read and answer in channels, open and post in threads, attach long answers. */
export const BOT_PERMISSIONS = {
  'View Channel': PermissionFlagsBits.ViewChannel,
  'Send Messages': PermissionFlagsBits.SendMessages,
  'Create Public Threads': PermissionFlagsBits.CreatePublicThreads,
  'Send Messages in Threads': PermissionFlagsBits.SendMessagesInThreads,
  'Read Message History': PermissionFlagsBits.ReadMessageHistory,
  'Attach Files': PermissionFlagsBits.AttachFiles,
} as const;

/** The permissions integer of `BOT_PERMISSIONS` (309237746688). */
export function botPermissionsInteger(): bigint {
  return new PermissionsBitField(Object.values(BOT_PERMISSIONS)).bitfield;
}

/** The link that adds the bot to a server with the `bot` and `applications.commands` scopes. */
export function inviteUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands].join(' '),
    permissions: botPermissionsInteger().toString(),
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}
