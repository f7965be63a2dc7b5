/**
 * What the `/skill` subcommands share: who the member is here (a moderator or not), who may write skills
 * in this server now (`/settings skills`), and the skill a subcommand names, if the member may change it
 * (a server's own; theirs, or anyone's for a moderator). Refusals are OptionProblems: said privately, with
 * nothing changed.
 */
import { PermissionFlagsBits, type ChatInputCommandInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { BotServices } from '../src/discord/services.js';
import { scopeOf } from '../src/discord/members.js';
import type { SkillView } from '../src/discord/skills/skill-catalog.js';
import { operatorSkillText } from '../src/discord/text/skill-text.js';
import { changeProblem, createProblem, type SkillAccess } from '../src/policy/index.js';
import { OptionProblem } from './command-options.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

export type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
export type GuildModal = ModalSubmitInteraction<'cached' | 'raw'>;
export type SkillCommandServices = Pick<BotServices, 'rules' | 'runtime' | 'turns' | 'schedules'>;

/** Whether the member moderates the bot here (Manage Server), as Discord says with the interaction. */
export function isModerator(interaction: GuildCommand | GuildModal): boolean {
  return interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild);
}

/** Who may write skills here now, or an OptionProblem when the storage does not say. */
export async function accessHere(interaction: GuildCommand | GuildModal, services: SkillCommandServices): Promise<SkillAccess> {
  const access = await services.rules.at(scopeOf(interaction, interaction.member)).skillAccess();
  if (!access) throw new OptionProblem('I cannot read the skill settings here right now (my storage is not answering). Nothing was changed; try again in a moment.');
  return access;
}

const WRITE_REFUSAL = {
  off: 'Skills are off in this server (`/settings skills`). Nothing was changed.',
  'moderators-only': 'Only moderators (Manage Server) may write skills in this server (`/settings skills`). Nothing was changed.',
  'not-owner': 'This skill is another member\'s: only its author or a moderator (Manage Server) may change it. Nothing was changed.',
} as const;

/** Refuse unless the member may write a new skill here. */
export async function requireWrite(interaction: GuildCommand | GuildModal, services: SkillCommandServices): Promise<void> {
  const problem = createProblem(await accessHere(interaction, services), { moderator: isModerator(interaction) });
  if (problem) throw new OptionProblem(WRITE_REFUSAL[problem]);
}

/** The skill named `name` in this server, or an OptionProblem saying so. */
export async function namedSkill(guildId: string, name: string, services: SkillCommandServices): Promise<SkillView> {
  const found = await services.rules.skills.catalog.find(guildId, name.trim().toLowerCase());
  if (!found) throw new OptionProblem(`There is no skill \`${name.slice(0, TEXT_CAPS.typedName).replace(/`/g, 'ˋ')}\` in this server: \`/skill list\` shows them. Nothing was changed.`);
  return found;
}

/** The server's own skill the member may change (not the operator's; theirs, or any for a moderator). */
export async function changeableSkill(interaction: GuildCommand | GuildModal, name: string, services: SkillCommandServices): Promise<SkillView & { source: { kind: 'server' } }> {
  const found = await namedSkill(interaction.guildId, name, services);
  if (found.source.kind === 'operator') throw new OptionProblem(operatorSkillText(found));
  const problem = changeProblem(await accessHere(interaction, services), { moderator: isModerator(interaction), id: interaction.user.id }, found.source.stored);
  if (problem) throw new OptionProblem(WRITE_REFUSAL[problem]);
  return found as SkillView & { source: { kind: 'server' } };
}
