/**
 * What the `/schedule` subcommands share: who the member is here (a moderator or not), whether they may
 * own schedules now (the server's `/settings schedules`), and finding the schedule a subcommand names,
 * if the member may act on it (their own, or anyone's for a moderator).
 */
import { PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import type { BotServices } from '../src/discord/services.js';
import { scopeOf } from '../src/discord/members.js';
import { rightRefusal } from '../src/discord/text/schedule-text.js';
import { scheduleRightProblem } from '../src/policy/index.js';
import type { Schedule } from '../src/state/index.js';
import { OptionProblem } from './command-options.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

export type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
export type ScheduleCommandServices = Pick<BotServices, 'schedules' | 'rules' | 'runtime' | 'turns'>;

/** Whether the member may moderate the bot here (Manage Server), as Discord says with the command. */
export function isModerator(interaction: GuildCommand): boolean {
  return interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild);
}

/** Refuse (an OptionProblem) unless the member may own schedules in this server now. */
export async function requireRight(interaction: GuildCommand, services: ScheduleCommandServices): Promise<void> {
  const access = await services.rules.at(scopeOf(interaction, interaction.member)).scheduleAccess();
  if (!access) throw new OptionProblem('I cannot read who may schedule questions here right now (my storage is not answering). Nothing was changed; try again in a moment.');
  const problem = scheduleRightProblem(access, { moderator: isModerator(interaction) });
  if (problem) throw new OptionProblem(rightRefusal(problem));
}

/** The schedule the `schedule` option names, if the member may act on it; else an OptionProblem saying why. */
export async function chosenSchedule(interaction: GuildCommand, services: ScheduleCommandServices): Promise<Schedule> {
  const id = interaction.options.getString('schedule', true).trim().toLowerCase();
  const found = (await services.schedules.store.list(interaction.guildId)).find((s) => s.id === id);
  if (!found) throw new OptionProblem(`There is no scheduled question \`${id.replace(/`/g, 'ˋ').slice(0, TEXT_CAPS.typedScheduleId)}\` in this server: \`/schedule list\` shows them. Nothing was changed.`);
  if (found.ownerId !== interaction.user.id && !isModerator(interaction)) {
    throw new OptionProblem(`Scheduled question \`${found.id}\` is <@${found.ownerId}>'s: only its owner or a moderator (Manage Server) may change or run it. Nothing was changed.`);
  }
  return found;
}

/** The key a schedule's claims are kept under (its one home is the shared schedule changes). */
export { scheduleKey } from '../src/discord/schedules/schedule-changes.js';
