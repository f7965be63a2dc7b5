/**
 * Approve and Deny under a tool call that waits for a person (see approvals.ts for the wait itself):
 * their custom ids, their builder and their handler. The run's starter or a moderator decides, or only
 * the people the tool named (a member approves a memory note for themselves alone); anyone else is told
 * who may.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { displayNameOf } from '../interaction-info.js';

/** A person's decision on a waiting call. */
export interface ApprovalDecision {
  approved: boolean;
  by: { id: string; name: string };
}

/**
 * What the buttons use of the calls waiting for a person (`ApprovalRegistry` in approvals.ts, which
 * has all of it; said here rather than imported, since approvals.ts builds these buttons).
 */
export interface WaitingApprovals {
  /** Who started the run of the call waiting under `key`; undefined when it no longer waits. */
  starterOf(key: string): string | undefined;
  /** Who alone may decide, when the tool named them (a member's own memory note); undefined: the starter or a moderator. */
  approversOf(key: string): ReadonlyArray<{ id: string; name: string }> | undefined;
  settle(key: string, decision: ApprovalDecision): boolean;
}

export const approvalButtons = {
  kind: 'button',
  prefix: 'approve:',

  /** The Approve and Deny buttons for the call waiting under `key` (`runId:callId`). */
  build(key: string) {
    return new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${approvalButtons.prefix}${key}:yes`).setLabel('Approve').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setCustomId(`${approvalButtons.prefix}${key}:no`).setLabel('Deny').setStyle(ButtonStyle.Secondary),
    );
  },

  async handle(interaction, { turns: { approvals } }) {
    const rest = customIdRest(approvalButtons, interaction.customId);
    const key = rest.slice(0, rest.lastIndexOf(':'));
    const approved = rest.endsWith(':yes');
    const starter = approvals.starterOf(key);
    if (starter === undefined) {
      await interaction.reply({ content: 'This call was already decided, or its run has ended.', flags: MessageFlags.Ephemeral });
      return;
    }
    const approvers = approvals.approversOf(key);
    if (approvers && !approvers.some((a) => a.id === interaction.user.id)) {
      await interaction.reply({ content: `Only ${approvers.map((a) => a.name).join(' or ')} can approve or deny this call.`, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
      return;
    }
    const moderator = interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) || interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild);
    if (!approvers && interaction.user.id !== starter && !moderator) {
      await interaction.reply({ content: 'Only the person who asked, or a moderator, can approve or deny this call.', flags: MessageFlags.Ephemeral });
      return;
    }
    // Acknowledged without a new message: the request is edited to show the decision.
    await interaction.deferUpdate();
    approvals.settle(key, { approved, by: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) } });
  },
} satisfies ButtonEntry<{ turns: { approvals: WaitingApprovals } }>;
