/**
 * Approve and Deny under a tool call that waits for a person (turn/approvals.ts keeps the wait, in the
 * shared storage): anyone whose message the turn answers, or a moderator, decides (a call the tool held
 * back for its owner, a memory note, only its owner); anyone else is told who may. The decision is taken once however many press at once, and the last one resumes the turn.
 */
import { MessageFlags, PermissionFlagsBits } from 'discord.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { displayNameOf } from '../members.js';
import { APPROVAL_PREFIX, approvalRow } from '../posting/run-components.js';
import type { Turns } from '../turn/pipeline.js';

export const approvalButtons = {
  kind: 'button',
  prefix: APPROVAL_PREFIX,
  build: approvalRow,

  async handle(interaction, { turns }) {
    const [id = '', index = '', verdict] = customIdRest(approvalButtons, interaction.customId).split(':');
    // Acknowledged before storage is read, privately: what the presser is told is for them alone.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const say = (content: string) => interaction.editReply({ content }).then(() => undefined);
    const who = await turns.whoMayDecide(interaction.client, id, Number(index), interaction.message.id);
    if (!who) return say('This call was already decided, or its run has ended.');
    // Its saved record could not be read back: the press ended it, and its thread says so.
    if ('ended' in who) return say(who.ended);
    // A call the tool held back for its owner (a memory note) is theirs alone to decide.
    if (who.only) {
      if (!who.only.some((a) => a.id === interaction.user.id)) return say(`Only ${who.only.map((a) => escapeDisplayName(a.name)).join(' or ')} can approve or deny this call.`);
    } else {
      const moderator = interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) || interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild);
      if (!who.askers.includes(interaction.user.id) && !moderator) return say('Only the person who asked, or a moderator, can approve or deny this call.');
    }
    const approved = verdict === 'yes';
    const pressed = await turns.decide(interaction.client, id, Number(index), { approved, by: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) } }, interaction.message.id);
    await say(pressed.ok ? (approved ? 'Approved: the run goes on.' : 'Denied: the run goes on without it.') : pressed.message);
  },
} satisfies ButtonEntry<{ turns: Pick<Turns, 'whoMayDecide' | 'decide'> }>;
