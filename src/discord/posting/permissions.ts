/**
 * What the bot may do where, and what Discord says when it may not: the permissions it needs, the
 * checks before any model call (the pre-flight: the bot must be able to post its answer there), and
 * Discord's refusals in words a server member can act on (the codes are Discord's JSON error codes).
 * And what members may do: the one rule of who may view a channel (`canView`, `memberCanView`: a passage,
 * a quoted message, an export reaches only those who can view where it was said), and a post made for a
 * member (a scheduled run) goes only where their own post could.
 *
 * A thread that was deleted or is locked, or where the bot lacks View Channel or Send Messages in
 * Threads, gets no run, so no model call is spent on an answer nobody would see. An archived thread is
 * not refused: a member's message reopens it (and Discord may deliver the message before saying so).
 * Attach Files is not checked: without it a long answer is posted as several messages instead.
 */
import { DiscordAPIError, PermissionFlagsBits, PermissionsBitField, type Channel, type Client, type Guild, type GuildChannel, type GuildMember, type ThreadChannel } from 'discord.js';

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

/** What the bot needs to answer in a thread. */
const NEEDED_IN_THREADS = ['View Channel', 'Send Messages in Threads'];

/** What the bot needs to open a thread in a channel and answer there. */
const NEEDED_FOR_THREADS = ['View Channel', 'Send Messages', 'Create Public Threads', 'Send Messages in Threads'];

/** What the bot lacks, by name, to answer in a thread (`thread`) or to open one in a channel (`new thread`). */
export function missingFor(where: 'thread' | 'new thread', appPermissions: Readonly<PermissionsBitField> | null | undefined): string[] {
  return missingPermissions(appPermissions, where === 'thread' ? NEEDED_IN_THREADS : NEEDED_FOR_THREADS);
}

/**
 * The same check as `threadProblem`, made on the permissions Discord sends with a command (so it is
 * instant, before the command acknowledges): why the bot cannot answer where it was asked, or undefined.
 */
export function commandPlaceProblem(where: 'thread' | 'new thread', appPermissions: Readonly<PermissionsBitField> | null | undefined): string | undefined {
  const missing = missingFor(where, appPermissions);
  if (missing.length === 0) return undefined;
  return missingPermissionsSentence(missing, where === 'thread' ? 'answer in this thread' : 'open a thread on that message');
}

/** Why a thread is closed to the bot's posts (deleted, or locked against it), or undefined. */
export function threadClosed(thread: ThreadChannel): 'deleted' | 'locked' | undefined {
  // discord.js drops a deleted thread from its cache on THREAD_DELETE; the object a turn holds stays.
  if (!thread.client.channels.cache.has(thread.id)) return 'deleted';
  if (thread.locked && !botHas(thread, PermissionFlagsBits.ManageThreads)) return 'locked';
  return undefined;
}

/** The permissions the bot lacks in a thread, by name, of those it needs to answer there. */
export function missingInThread(thread: ThreadChannel, needed: readonly string[] = NEEDED_IN_THREADS): string[] {
  const me = thread.guild.members.me;
  return me ? missingPermissions(thread.permissionsFor(me), [...needed]) : [];
}

/** Why the bot cannot answer in this thread now, as a sentence for the person, or undefined. */
export function threadProblem(thread: ThreadChannel): string | undefined {
  const closed = threadClosed(thread);
  if (closed === 'deleted') return 'This thread was deleted, so I did not answer.';
  if (closed === 'locked') return 'This thread is locked, so I did not answer. Start a new /ask in the channel.';
  const missing = missingInThread(thread);
  if (missing.length > 0) return missingPermissionsSentence(missing, 'answer in this thread');
  return undefined;
}

function botHas(thread: ThreadChannel, permission: bigint): boolean {
  const me = thread.guild.members.me;
  return me ? thread.permissionsFor(me).has(permission) : false;
}

// Who may see a channel: the one rule of "may this member view this channel", for what was said in it (a
// knowledge passage, an earlier thread, a quoted reply) and for what is copied out of it (an export).
// Read from discord.js's caches (or the permissions Discord sent with a command); anything that cannot
// be read counts as "cannot view".

/** Whether these permissions (a member's or a role's in a channel) let them view it. None known: no. */
export function canView(permissions: Readonly<PermissionsBitField> | null | undefined): boolean {
  return permissions?.has(PermissionFlagsBits.ViewChannel) ?? false;
}

/** Whether they may view the channel and scroll back through it: what a copy of its history (an export) asks. */
export function canReadHistory(permissions: Readonly<PermissionsBitField> | null | undefined): boolean {
  return !!permissions && canView(permissions) && permissions.has(PermissionFlagsBits.ReadMessageHistory);
}

/** Whether `member` may view `channel` now (a thread: as its parent says). No member, or a DM: no. */
export function memberCanView(channel: Channel | GuildChannel, member: GuildMember | null | undefined): boolean {
  if (!member || channel.isDMBased()) return false;
  return canView(channel.permissionsFor(member));
}

/** Whether a member may view a channel; what `search_knowledge` and `/kb search` ask per channel. */
export type ChannelViewer = (channelId: string) => Promise<boolean>;

/** The channel viewer of `userId` in `guild`, with one fetch for a member or channel not cached yet (no guild: nothing channel-bound is visible). */
export function channelViewer(guild: Guild | null | undefined, userId: string): ChannelViewer {
  let member: Promise<GuildMember | undefined> | undefined;
  const memberOf = (g: Guild) => (member ??= g.members.fetch(userId).catch(() => undefined));
  return async (channelId) => {
    if (!guild) return false;
    const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
    const who = guild.members.cache.get(userId) ?? (await memberOf(guild));
    return !!channel && memberCanView(channel, who);
  };
}

/**
 * What a post made for a member asks of them: writing in the channel, opening a public thread there
 * (`opensThread`), writing in its threads (`inThreads`). A scheduled run posts for its owner, so it may
 * only post where the owner's own post could go.
 */
export interface MemberPost {
  opensThread: boolean;
  inThreads: boolean;
}

/**
 * The permissions `member` lacks, by name, to make `post` in `channel`, by the rule Discord applies to
 * their own posts: View Channel and Send Messages always, Create Public Threads to open a thread, Send
 * Messages in Threads to write in one (a public thread takes its parent's permissions, so the channel's
 * answer holds for its threads). Empty: they may. Read from discord.js's caches as they are now.
 */
export function memberMissingToPost(channel: GuildChannel, member: GuildMember, post: MemberPost): string[] {
  const needed = ['Send Messages'];
  if (post.opensThread) needed.push('Create Public Threads');
  if (post.inThreads) needed.push('Send Messages in Threads');
  return [...(memberCanView(channel, member) ? [] : ['View Channel']), ...missingPermissions(channel.permissionsFor(member), needed)];
}

/** Whether @everyone lacks View Channel in a channel: only some members can read it. Unknown: true. */
export async function isRestrictedChannel(guild: Guild, channelId: string): Promise<boolean> {
  const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
  return !channel || !canView(channel.permissionsFor(guild.roles.everyone));
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
    for (const viewer of viewers) if (!(await viewer(channelId))) return false;
    return channelId === postedIn || !(await isRestrictedChannel(guild, channelId));
  };
}
