/**
 * The invite link that asks for exactly the permissions the bot needs (`PERMISSION_NAMES`, the list
 * its messages name too), so the README, the start-up log and the code agree: the integer is
 * computed from discord.js's permission flags, never typed by hand.
 */
import { OAuth2Scopes, PermissionsBitField } from 'discord.js';
import { PERMISSION_NAMES } from './posting/discord-errors.js';

/** The permissions integer the bot asks for (309237746688). */
export function botPermissionsInteger(): bigint {
  return new PermissionsBitField(Object.values(PERMISSION_NAMES)).bitfield;
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
