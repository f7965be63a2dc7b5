/**
 * Running a skill: its own guild command (`/<name>`, through the interaction registry's one route for a
 * guild's own commands) or `/skill run name: input:` (several inputs ` | `-separated, for a skill that
 * has no command of its own too). The member must be one the skill is open to (`/skill access`); the run
 * is a turn like `/ask` (the pipeline's one start: limits, thread, tools, approvals), its message the
 * command and the member's words, its instructions the skill's with those words quoted in them.
 */
import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import type { GuildCommandRoute } from '../src/discord/interactions.js';
import { displayNameOf, NO_MENTIONS, scopeOf } from '../src/discord/members.js';
import { skillRunOf, type SkillView } from '../src/discord/skills/skill-catalog.js';
import { runnersText } from '../src/discord/text/skill-text.js';
import { mayRun } from '../src/policy/index.js';
import { runLine, splitInputs } from '../src/skills/index.js';
import { OptionProblem } from './command-options.js';
import { accessHere, isModerator, namedSkill, type GuildCommand, type SkillCommandServices } from './skill-access.js';

/** Said privately; the public "thinking…" reply, if any, gives way to it. */
async function refuse(interaction: ChatInputCommandInteraction, content: string): Promise<void> {
  if (interaction.deferred) {
    await interaction.deleteReply().catch(() => undefined);
    await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  } else await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
}

/** Run `skill` with `values` (one per input, in order) as the member, as a turn. */
export async function runSkill(interaction: GuildCommand, services: SkillCommandServices, skill: SkillView, values: readonly string[], note?: string): Promise<void> {
  const scope = scopeOf(interaction, interaction.member);
  if ((await accessHere(interaction, services)) === 'off') throw new OptionProblem('Skills are off in this server (`/settings skills`). Nothing was run.');
  if (!mayRun(skill.roles, { moderator: isModerator(interaction), roleIds: scope.roleIds })) {
    throw new OptionProblem(`\`/${skill.name}\` is for ${runnersText(skill.roles)}: ask a moderator if you should have it. Nothing was run.`);
  }
  const input = services.turns.checkInput(scope, runLine(skill.name, skill.inputs, values));
  if (!input.ok) throw new OptionProblem(`${input.message} Nothing was run.`);
  const logFields = { interactionId: interaction.id, guildId: interaction.guildId, userId: interaction.user.id, skill: skill.name };
  await services.turns.start({
    kind: 'skill',
    interaction,
    request: { scope, author: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) }, text: input.text, logFields },
    skill: skillRunOf(skill, values),
    ...(note ? { note } : {}),
  });
}

/** Acknowledge at once (Discord allows 3 s; the store may be slow), then run or refuse privately. */
async function acknowledged(interaction: ChatInputCommandInteraction, services: SkillCommandServices, go: (i: GuildCommand) => Promise<void>): Promise<void> {
  if (!interaction.inGuild()) return void (await interaction.reply({ content: 'Skills run inside a server.', flags: MessageFlags.Ephemeral }));
  await interaction.deferReply();
  try {
    await go(interaction);
  } catch (error) {
    if (!(error instanceof OptionProblem)) throw error;
    await refuse(interaction, error.message);
  }
}

/** `/skill run name: [input:]`. */
export function runNamed(interaction: GuildCommand, services: SkillCommandServices): Promise<void> {
  return acknowledged(interaction, services, async (i) => {
    const skill = await namedSkill(i.guildId, i.options.getString('name', true), services);
    const values = splitInputs(skill.inputs, i.options.getString('input') ?? '');
    if (!values.ok) throw new OptionProblem(values.problem);
    const own = services.rules.skills.commands.has(i.guildId, skill.name);
    await runSkill(i, services, skill, values.values, own === false ? `\`/${skill.name}\` has no command of its own here, so it ran through \`/skill run\`.` : undefined);
  });
}

/** The route of a guild's own commands: `/<name>` of one of its skills, its inputs as options. */
export const skillCommandRoute: GuildCommandRoute = {
  kind: 'guild-command',
  execute: (interaction, services) =>
    acknowledged(interaction, services, async (i) => {
      const skill = await services.rules.skills.catalog.find(i.guildId, i.commandName);
      if (!skill) throw new OptionProblem(`\`/${i.commandName}\` is no longer a skill of this server (it was removed, or skills are off). Nothing was run.`);
      await runSkill(i, services, skill, skill.inputs.map((name) => i.options.getString(name) ?? ''));
    }),
};
