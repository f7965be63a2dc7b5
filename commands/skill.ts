/**
 * /skill — a server's own commands, written in Discord (issue 45): `create`, `edit` (a form, prefilled),
 * `show`, `list`, `run`, `access`, `rollback`, `remove`, `export` and `import`. Who may write skills is
 * the server's choice (`/settings skills`, moderators by default), checked at run time; every change is
 * audited. Replies are private, but a run, which is a turn like `/ask`. Descriptions stay short: the whole
 * command must fit Discord's 8,000 characters (test/discord/command-size.test.ts counts it).
 */
import { InteractionContextType, LabelBuilder, MessageFlags, ModalBuilder, SlashCommandBuilder, TextInputBuilder, TextInputStyle, type SlashCommandStringOption } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { fitMessage } from '../src/discord/posting/split-message.js';
import { describeError } from '../src/errors.js';
import { SKILL_DESCRIPTION_MAX, SKILL_INSTRUCTIONS_MAX } from '../src/skills/index.js';
import { QUESTION_CHARS_FOR_INPUTS } from '../src/discord/skills/skill-command-body.js';
import { OptionProblem } from './command-options.js';
import { changeableSkill, type GuildCommand, type GuildModal } from './skill-access.js';
import { completeSkill } from './skill-autocomplete.js';
import { exportSkill, listSkills, showSkill, type Answer } from './skill-read.js';
import { runNamed } from './skill-run.js';
import { createSkill, importSkill, removeSkill, rollbackSkill, setSkillAccess, submitEdit } from './skill-write.js';

const EDIT = 'skill-edit:';
const name = (o: SlashCommandStringOption) => o.setName('name').setDescription('Which skill').setRequired(true).setAutocomplete(true).setMaxLength(32);

/** The edit form, prefilled with the skill's current text. */
function editForm(skill: { name: string; description: string; instructions: string; inputs: readonly string[]; tools: readonly string[] }): ModalBuilder {
  const field = (id: string, label: string, value: string, style: TextInputStyle, max: number, required: boolean) =>
    new LabelBuilder().setLabel(label).setTextInputComponent(new TextInputBuilder().setCustomId(id).setStyle(style).setMaxLength(max).setRequired(required).setValue(value));
  return new ModalBuilder().setCustomId(`${EDIT}${skill.name}`).setTitle(`Edit /${skill.name}`.slice(0, 45)).addLabelComponents(
    field('description', 'Description', skill.description, TextInputStyle.Short, SKILL_DESCRIPTION_MAX, true),
    field('instructions', 'Instructions ({input} for an input)', skill.instructions, TextInputStyle.Paragraph, SKILL_INSTRUCTIONS_MAX, true),
    field('inputs', 'Inputs (up to 5, comma-separated)', skill.inputs.join(', '), TextInputStyle.Short, 200, false),
    field('tools', 'Tools (space-separated)', skill.tools.join(' '), TextInputStyle.Short, 400, false),
  );
}

/** A subcommand's answer, or what went wrong (an OptionProblem is the member's; anything else is logged). */
async function answered(interaction: GuildCommand | GuildModal, services: Parameters<Command['execute']>[1], work: () => Promise<string | Answer>): Promise<void> {
  let answer: Answer;
  try {
    const got = await work();
    answer = typeof got === 'string' ? { content: got } : got;
  } catch (error) {
    if (!(error instanceof OptionProblem)) services.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/skill failed');
    answer = { content: error instanceof OptionProblem ? error.message : `❌ That did not work (${describeError(error)}). Nothing was changed; try again in a moment.` };
  }
  await interaction.editReply({ content: fitMessage(answer.content), files: answer.files ?? [], allowedMentions: NO_MENTIONS });
}

export const skill: Command = {
  data: new SlashCommandBuilder()
    .setName('skill')
    .setDescription("This server's own commands: instructions and tools, written by its moderators.")
    .setContexts(InteractionContextType.Guild)
    .addSubcommand((s) => s.setName('create').setDescription('Write a skill (it becomes /name)')
      .addStringOption((o) => o.setName('name').setDescription('a-z, 0-9, - or _, up to 32').setRequired(true).setMaxLength(32))
      .addStringOption((o) => o.setName('description').setDescription('What it does').setRequired(true).setMaxLength(SKILL_DESCRIPTION_MAX))
      .addStringOption((o) => o.setName('instructions').setDescription('What I do; {input} for an input').setRequired(true).setMaxLength(SKILL_INSTRUCTIONS_MAX))
      .addStringOption((o) => o.setName('inputs').setDescription('Up to 5 names, e.g. incident, audience').setMaxLength(200))
      .addStringOption((o) => o.setName('tools').setDescription('Tools it may use, space-separated').setMaxLength(400).setAutocomplete(true)))
    .addSubcommand((s) => s.setName('edit').setDescription('Change a skill (a form)').addStringOption(name))
    .addSubcommand((s) => s.setName('show').setDescription('Its text and revisions').addStringOption(name))
    .addSubcommand((s) => s.setName('list').setDescription('The skills you may run here'))
    .addSubcommand((s) => s.setName('run').setDescription('Run a skill').addStringOption(name)
      .addStringOption((o) => o.setName('input').setDescription('Its inputs, in order, separated by " | "').setMaxLength(QUESTION_CHARS_FOR_INPUTS)))
    .addSubcommand((s) => s.setName('access').setDescription('Who may run it (no role: everyone)').addStringOption(name)
      .addRoleOption((o) => o.setName('role').setDescription('Add this role'))
      .addBooleanOption((o) => o.setName('remove').setDescription('Remove the role instead')))
    .addSubcommand((s) => s.setName('rollback').setDescription('Back to an earlier revision').addStringOption(name)
      .addIntegerOption((o) => o.setName('revision').setDescription('Which revision').setRequired(true).setMinValue(1).setAutocomplete(true)))
    .addSubcommand((s) => s.setName('remove').setDescription('Remove a skill and its command').addStringOption(name))
    .addSubcommand((s) => s.setName('export').setDescription('As a SKILL.md file').addStringOption(name))
    .addSubcommand((s) => s.setName('import').setDescription('From a SKILL.md file (moderators)')
      .addAttachmentOption((o) => o.setName('file').setDescription('The SKILL.md').setRequired(true))),

  async execute(interaction, services) {
    if (!interaction.inGuild()) {
      await interaction.reply({ content: '`/skill` works inside a server.', flags: MessageFlags.Ephemeral });
      return;
    }
    const sub = interaction.options.getSubcommand();
    if (sub === 'run') return runNamed(interaction, services);
    if (sub === 'edit') {
      // A form must be the first answer: no deferral, and only a read of the skill before it.
      try {
        await interaction.showModal(editForm(await changeableSkill(interaction, interaction.options.getString('name', true), services)));
      } catch (error) {
        const content = error instanceof OptionProblem ? error.message : `❌ I could not open the form (${describeError(error)}).`;
        await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      }
      return;
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const work = { create: createSkill, show: showSkill, list: listSkills, access: setSkillAccess, rollback: rollbackSkill, remove: removeSkill, export: exportSkill, import: importSkill }[sub];
    await answered(interaction, services, () => (work ? work(interaction, services) : Promise.resolve(`Unknown subcommand \`${sub}\`.`)));
  },

  autocomplete: (interaction, services) => completeSkill(interaction, services),

  modals: {
    prefix: EDIT,
    async handle(interaction, services) {
      if (!interaction.inGuild()) return;
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      await answered(interaction, services, () => submitEdit(interaction, services, interaction.customId.slice(EDIT.length)));
    },
  },
};
