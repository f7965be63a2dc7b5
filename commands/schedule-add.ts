/**
 * `/schedule add when: [question:] [channel:] [thread:] [skill: inputs:]`: the right to own schedules
 * here, the question (the checks of any question) or a skill the member may run and its inputs (as for
 * `/skill run`; each run is the skill's current revision, run as the schedule's owner), a channel where the member may post what its runs post (as their own
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
import { isModerator } from './skill-access.js';
import { mayRun } from '../src/policy/index.js';
import { runLine, splitInputs } from '../src/skills/index.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

/** The skill `skill:` names, if the member may run it, with its inputs read: what the schedule keeps, and its run's line. */
async function scheduledSkill(interaction: GuildCommand, services: ScheduleCommandServices, roleIds: readonly string[]): Promise<{ saved: { name: string; inputs: string[] }; line: string } | undefined> {
  const name = interaction.options.getString('skill')?.trim().toLowerCase();
  if (!name) return undefined;
  if (interaction.options.getString('question')) throw new OptionProblem('Give a `question` or a `skill`, not both: a scheduled run asks one or runs the other. Nothing was saved.');
  const found = await services.rules.skills.catalog.find(interaction.guildId, name);
  if (!found) throw new OptionProblem(`There is no skill \`${name.slice(0, TEXT_CAPS.typedName)}\` in this server: \`/skill list\` shows them. Nothing was saved.`);
  if (!mayRun(found.roles, { moderator: isModerator(interaction), roleIds })) throw new OptionProblem(`You may not run \`/${found.name}\`, so it cannot run for you on a schedule. Nothing was saved.`);
  const values = splitInputs(found.inputs, interaction.options.getString('inputs') ?? '');
  if (!values.ok) throw new OptionProblem(values.problem.replace('`input:`', '`inputs:`').replace('Nothing was run.', 'Nothing was saved.'));
  return { saved: { name: found.name, inputs: values.values }, line: runLine(found.name, found.inputs, values.values) };
}

export async function addSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<string> {
  await requireRight(interaction, services);
  const scope = scopeOf(interaction, interaction.member);
  const skill = await scheduledSkill(interaction, services, scope.roleIds);
  const asked = skill?.line ?? interaction.options.getString('question');
  if (!asked) throw new OptionProblem('Say what to ask each time in `question`, or name a `skill` to run (with its `inputs`). Nothing was saved.');
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
    { guildId: interaction.guildId, channelId: channel.id, ownerId: interaction.user.id, ownerName, question, when: typed.trim(), ...when.when, thread, createdAt: now, activeSince: now, ...(skill ? { skill: skill.saved } : {}) },
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
