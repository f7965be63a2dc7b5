/**
 * Whether a user can invoke a command where they are. A Discord client only offers commands that are
 * registered, allowed in that context and permitted to that member, so the fake refuses anything else
 * with a test error (thrown from the helper) rather than an interaction reality cannot produce.
 */
import type { FakeCore } from './core.js';
import { ALL_PERMISSIONS, Permission } from './permissions.js';
import { ChannelKind, type CommandPermission, type FakeChannel, type FakeCommand, isThreadOnly } from './records.js';

const TYPE_WORD: Record<number, string> = { 1: 'slash command /', 2: 'user command ', 3: 'message command ' };

/** The registered command a user would pick: a guild command first, then a global one; none in DMs for guild commands. */
export function findCommand(core: FakeCore, name: string, type: number, channel: FakeChannel): FakeCommand {
  const all = [...core.commands.values()].filter((c) => c.name === name && c.type === type);
  const found = all.find((c) => channel.guildId !== null && c.guildId === channel.guildId) ?? all.find((c) => c.guildId === null);
  if (!found) {
    const where = channel.guildId ? `guild ${channel.guildId} or globally` : 'globally (guild commands never show in DMs)';
    throw new Error(`fake-discord: ${TYPE_WORD[type] ?? ''}${name} is not registered in ${where}; a Discord client cannot send it. `
      + 'Register the command first (fake.registerCommands(json) or the bot\'s own deploy).');
  }
  return found;
}

/**
 * Throws unless the user may run `command` in `channel`: the command's contexts (global commands only;
 * application-commands.mdx "Interaction Contexts"), Use Application Commands, the command permission
 * overwrites an admin set, then `default_member_permissions` ("0": admins only). Administrators and
 * the owner can use every command ("Members with the Administrator permission can use all commands").
 */
export function checkCommandAccess(core: FakeCore, command: FakeCommand, channel: FakeChannel, userId: string): void {
  const label = `${TYPE_WORD[command.type] ?? ''}${command.name}`;
  const dm = channel.type === ChannelKind.DM;
  const contexts = Array.isArray(command.raw.contexts) ? (command.raw.contexts as number[]) : null;
  if (command.guildId === null && contexts && !contexts.includes(dm ? 1 : 0)) {
    throw new Error(`fake-discord: ${label} is registered with contexts ${JSON.stringify(contexts)}, so Discord does not offer it ${dm ? 'in DMs' : 'in servers'}`);
  }
  if (dm) {
    if (command.raw.dm_permission === false) throw new Error(`fake-discord: ${label} has dm_permission false; Discord does not offer it in DMs`);
    return;
  }
  if (channel.thread?.archived) {
    // threads.md, "Active & Archived Threads": users cannot use application commands in archived threads.
    throw new Error(`fake-discord: thread ${channel.id} is archived; Discord does not let members use application commands there`);
  }
  if (isThreadOnly(channel) && command.type === 1) {
    // A forum or media channel has no message box to type a slash command into; its posts do.
    throw new Error(`fake-discord: #${channel.name} is a forum; commands are used inside its posts`);
  }
  const perms = core.world.permissionsIn(channel.id, userId);
  if (perms === ALL_PERMISSIONS || (perms & Permission.Administrator) !== 0n) return;
  if ((perms & Permission.UseApplicationCommands) === 0n) {
    throw new Error(`fake-discord: user ${userId} lacks Use Application Commands in ${channel.id}; Discord shows them no commands there`);
  }
  const verdict = overwriteVerdict(core, command, channel, userId);
  if (verdict === false) throw new Error(`fake-discord: an admin disabled ${label} for user ${userId} or channel ${channel.id} (command permissions)`);
  if (verdict === true) return;
  const dmp = command.raw.default_member_permissions;
  if (typeof dmp !== 'string') return;
  const needed = BigInt(dmp);
  // "0" prohibits everyone but admins: no permission set contains nothing-and-something.
  if (needed === 0n || (perms & needed) !== needed) {
    throw new Error(`fake-discord: user ${userId} lacks the default member permissions of ${label} (${dmp}${dmp === '0' ? ': admins only' : ''}); Discord hides it from them`);
  }
}

/**
 * The admin's overwrites (Server Settings > Integrations), simplified: a channel overwrite (or "all
 * channels", guild id - 1) that disables the command wins; then the user's own, then any of their roles
 * (an allow beats a deny), then @everyone (the guild id). Undefined when none applies. The docs describe
 * the overwrites but not their precedence; this is the order the Integrations screen presents.
 */
function overwriteVerdict(core: FakeCore, command: FakeCommand, channel: FakeChannel, userId: string): boolean | undefined {
  const guildId = channel.guildId as string;
  const list: CommandPermission[] = core.commandPermissions.get(`${guildId}:${command.id}`) ?? [];
  if (list.length === 0) return undefined;
  const governing = channel.thread && channel.parentId ? channel.parentId : channel.id;
  const allChannels = (BigInt(guildId) - 1n).toString();
  const channelRule = list.find((p) => p.type === 3 && p.id === governing) ?? list.find((p) => p.type === 3 && p.id === allChannels);
  if (channelRule?.permission === false) return false;
  const own = list.find((p) => p.type === 2 && p.id === userId);
  if (own) return own.permission;
  const roles = core.world.member(guildId, userId)?.roles ?? [];
  const roleRules = list.filter((p) => p.type === 1 && roles.includes(p.id));
  if (roleRules.some((p) => p.permission)) return true;
  if (roleRules.length > 0) return false;
  return list.find((p) => p.type === 1 && p.id === guildId)?.permission;
}
