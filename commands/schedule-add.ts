/**
 * `/schedule add question: when: [channel:] [thread:]`: the right to own schedules here, the question
 * (the checks of any question), a channel where the member may post what its runs post (as their own
 * post there: posting/permissions.ts) and the bot can open threads, `when` read and checked (parseWhen:
 * a phrase or cron, a time zone named or taken from the member's other schedules, the minimum interval),
 * then the caps, checked as the schedule is saved. The reply shows the next three runs.
 */
import { ChannelType } from 'discord.js';
import { displayNameOf, ruleChannel, scopeOf } from '../src/discord/members.js';
import { memberMissingToPost, missingPermissionsSentence, missingFor } from '../src/discord/posting/permissions.js';
import { capRefusal, nextRunsText, postRefusal, questionPreview, whenText } from '../src/discord/text/schedule-text.js';
import { capProblem } from '../src/policy/index.js';
import { parseWhen } from '../src/schedules/index.js';
import { OptionProblem } from './command-options.js';
import { auditAction } from './moderation.js';
import { requireRight, type GuildCommand, type ScheduleCommandServices } from './schedule-access.js';

export async function addSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  await requireRight(interaction, services);
  const scope = scopeOf(interaction, interaction.member);
  const asked = interaction.options.getString('question', true);
  const input = services.turns.checkInput(scope, asked);
  if (!input.ok) throw new OptionProblem(`${input.message} Nothing was saved.`);
  const question: string = input.text;
  const channelId = interaction.options.getChannel('channel')?.id ?? ruleChannel(interaction.channel).channelId;
  const channel = await interaction.client.channels.fetch(channelId).catch(() => null);
  if (!channel || (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement)) {
    throw new OptionProblem('Scheduled questions post in a text or announcement channel: name one with `channel:`. Nothing was saved.');
  }
  const thread = interaction.options.getString('thread') === 'same' ? 'same' : 'new';
  // Its runs post for the member: only where their own post could go (the first run opens the thread).
  const member = await channel.guild.members.fetch(interaction.user.id);
  const cannotPost = memberMissingToPost(channel, member, { opensThread: true, inThreads: thread === 'same' });
  if (cannotPost.length) throw new OptionProblem(postRefusal(cannotPost, channel.id));
  const me = channel.guild.members.me;
  const missing = missingFor('new thread', me ? channel.permissionsFor(me) : null);
  if (missing.length) throw new OptionProblem(`${missingPermissionsSentence(missing, `open threads in <#${channel.id}>`)} Nothing was saved.`);

  const { store, caps } = services.schedules;
  const now = services.schedules.now();
  const mine = (await store.list(interaction.guildId)).filter((s) => s.ownerId === interaction.user.id);
  const defaultZone = mine.at(-1)?.timeZone;
  const typed = interaction.options.getString('when', true);
  const when = parseWhen(typed, { defaultZone, minIntervalMinutes: caps.minIntervalMinutes, nowMs: now });
  if (!when.ok) throw new OptionProblem(`${when.problem} Nothing was saved.`);
  const ownerName = displayNameOf(interaction.member, interaction.user);
  const added = await store.add(
    { guildId: interaction.guildId, channelId: channel.id, ownerId: interaction.user.id, ownerName, question, when: typed.trim(), ...when.when, thread, createdAt: now, activeSince: now },
    (existing) => capProblem(existing, interaction.user.id, caps),
  );
  if (!added.ok) throw new OptionProblem(capRefusal(added.refused.cap, added.refused.max));
  const saved = added.schedule;
  services.schedules.changed();
  const detail = `scheduled the question \`${saved.id}\` (“${questionPreview(question, 80)}”) ${whenText(saved)} in <#${channel.id}>`;
  const logNote = await auditAction(services, interaction, 'schedule.add', detail);
  const zoneNote = when.when.zoneNamed ? '' : defaultZone === saved.timeZone
    ? `\n-# Time zone ${saved.timeZone}, as in your other schedules here; name another in \`when\` to change it.`
    : `\n-# No time zone named: ${saved.timeZone}. Add one to \`when\` (like \`Europe/Paris\`) for local times.`;
  return [
    `✅ Scheduled \`${saved.id}\`: “${questionPreview(question, 200)}”`,
    `${whenText(saved)}, in <#${channel.id}>, ${thread === 'same' ? 'one thread for all runs' : 'a new thread for each run'}. Each run is yours: your tools and limits at that time.`,
    '**Next runs:**',
    nextRunsText(saved, now),
  ].join('\n') + zoneNote + logNote;
}
