/**
 * What is checked before a scheduled run, against Discord as it is now (not as it was when the schedule
 * was made), so that no model call is spent on a run that should not happen: the owner is still a member,
 * still has the right to own schedules here (`/settings schedules`: a moderator who lost Manage Server
 * loses it under "moderators only") and may still post there what the run posts (the rule of their own
 * posts, as at `/schedule add`); the channel still exists; the bot may still post its thread there. A
 * failure says why, and where the owner can be told (in the channel, or by DM when the channel is the
 * problem). A failure that may pass by itself (Discord or the storage not answering) is `transient`:
 * that run is not made, but the schedule is not paused for it.
 */
import { ChannelType, PermissionFlagsBits, type Client, type Guild, type GuildMember, type NewsChannel, type TextChannel, type ThreadChannel } from 'discord.js';
import { describeError } from '../../errors.js';
import { scheduleRightProblem, type RunScope } from '../../policy/index.js';
import type { Schedule } from '../../state/index.js';
import { discordCode, DiscordCode, memberCanView, memberMissingToPost, missingPermissionsSentence, missingFor, threadProblem } from '../posting/permissions.js';
import { postPauseReason } from '../text/schedule-text.js';
import type { Rules } from '../rules/rules.js';

/** Discord's codes for a member or a channel that is no longer there. */
const UNKNOWN_CHANNEL = 10003;
const UNKNOWN_MEMBER = 10007;

/** The channels a schedule may post in. */
export type ScheduleChannel = TextChannel | NewsChannel;

export type PreRun =
  | { ok: true; guild: Guild; channel: ScheduleChannel; member: GuildMember; scope: RunScope; thread?: ThreadChannel }
  | { ok: false; reason: string; tell: 'channel' | 'dm'; channel?: ScheduleChannel; transient?: boolean };

export async function preRunChecks(client: Client, schedule: Schedule, rules: Pick<Rules, 'at'>): Promise<PreRun> {
  const guild = client.guilds.cache.get(schedule.guildId);
  if (!guild) return { ok: false, reason: 'the server is not available to me right now.', tell: 'dm', transient: true };
  let channel: ScheduleChannel;
  try {
    // Asked of Discord, not the cache: a channel deleted a moment ago must not get a run.
    const found = await client.channels.fetch(schedule.channelId, { force: true });
    if (!found || (found.type !== ChannelType.GuildText && found.type !== ChannelType.GuildAnnouncement)) {
      return { ok: false, reason: `the channel <#${schedule.channelId}> is no longer a text channel.`, tell: 'dm' };
    }
    channel = found;
  } catch (error) {
    const code = discordCode(error);
    if (code === UNKNOWN_CHANNEL) return { ok: false, reason: `the channel it posts in (<#${schedule.channelId}>) no longer exists.`, tell: 'dm' };
    if (code === DiscordCode.MissingAccess) return { ok: false, reason: `I can no longer see the channel <#${schedule.channelId}>.`, tell: 'dm' };
    return { ok: false, reason: `I could not reach Discord (${describeError(error)}).`, tell: 'dm', transient: true };
  }
  let member: GuildMember;
  try {
    member = await guild.members.fetch({ user: schedule.ownerId, force: true });
  } catch (error) {
    if (discordCode(error) === UNKNOWN_MEMBER) return { ok: false, reason: 'its owner is no longer a member of this server.', tell: 'channel', channel };
    return { ok: false, reason: `I could not reach Discord (${describeError(error)}).`, tell: 'channel', channel, transient: true };
  }
  const scope: RunScope = { guildId: guild.id, channelId: channel.id, categoryId: channel.parentId ?? null, userId: member.id, roleIds: [...member.roles.cache.keys()] };
  const access = await rules.at(scope).scheduleAccess();
  if (!access) return { ok: false, reason: 'I could not read who may schedule questions here (my storage is not answering).', tell: 'channel', channel, transient: true };
  const right = scheduleRightProblem(access, { moderator: member.permissions.has(PermissionFlagsBits.ManageGuild) });
  if (right === 'off') return { ok: false, reason: 'scheduled questions are turned off in this server now (`/settings schedules`).', tell: 'channel', channel };
  if (right) return { ok: false, reason: 'only moderators may have scheduled questions in this server now, and its owner is not one.', tell: 'channel', channel };
  const thread = schedule.thread === 'same' && schedule.threadId ? await usableThread(client, schedule.threadId) : undefined;
  // The run posts for its owner: only where their own post could go now, as at `/schedule add`.
  const cannotPost = memberMissingToPost(channel, member, { opensThread: !thread, inThreads: schedule.thread === 'same' });
  if (cannotPost.length) {
    // Told where they can read it: in the channel, unless it is hidden from them now.
    const hidden = !memberCanView(channel, member);
    return { ok: false, reason: postPauseReason(cannotPost, channel.id), ...(hidden ? { tell: 'dm' } : { tell: 'channel', channel }) };
  }
  const problem = thread ? threadProblem(thread) : postProblem(channel);
  if (problem) return { ok: false, reason: problem, tell: 'dm' };
  return { ok: true, guild, channel, member, scope, ...(thread ? { thread } : {}) };
}

/** Why the bot cannot open a run's thread in the channel, or undefined. */
function postProblem(channel: ScheduleChannel): string | undefined {
  const me = channel.guild.members.me;
  const missing = missingFor('new thread', me ? channel.permissionsFor(me) : null);
  return missing.length ? missingPermissionsSentence(missing, `open a thread in <#${channel.id}>`) : undefined;
}

/** The schedule's own thread, if it still exists and is not locked (else its next run opens a new one). */
async function usableThread(client: Client, threadId: string): Promise<ThreadChannel | undefined> {
  try {
    const found = await client.channels.fetch(threadId);
    return found?.isThread() && !found.locked ? found : undefined;
  } catch {
    return undefined;
  }
}
