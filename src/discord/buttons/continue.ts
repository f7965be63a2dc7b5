/**
 * Continue past the step limit. A run that stopped at its step limit answers from what it had, and its
 * answer carries a Continue button: the person who asked may press it to go on from the thread's memory
 * with a fresh step budget. It goes through the turn pipeline like any message, so usage limits count it.
 */
import { MessageFlags } from 'discord.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { displayNameOf, scopeOf } from '../members.js';
import { CONTINUE_PREFIX, continueRow, voteRow, votesOn } from '../posting/run-components.js';
import type { OneTimeClaims } from '../runs/one-time-claims.js';
import type { Turns } from '../turn/pipeline.js';

/** What the continuing turn says, as the starter's message (stored, so the thread's memory shows it). */
export const CONTINUE_TEXT = 'Continue: you stopped at the step limit. Carry on from what you have found so far, with a fresh set of steps.';

export const continueButton = {
  kind: 'button',
  prefix: CONTINUE_PREFIX,
  build: continueRow,

  async handle(interaction, { turns }) {
    const starterId = customIdRest(continueButton, interaction.customId);
    const thread = interaction.channel;
    if (interaction.user.id !== starterId) {
      await interaction.reply({ content: 'Only the person who asked can let this run continue. You can ask your own question with `/ask`.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (!thread?.isThread()) {
      await interaction.reply({ content: 'This run can only continue in its thread.', flags: MessageFlags.Ephemeral });
      return;
    }
    // One run per button, however many clicks arrive before it is gone (a double click, two devices).
    const key = `continue:${interaction.message.id}`;
    if (!turns.claims.claim(key)) {
      await interaction.deferUpdate().catch(() => undefined);
      return;
    }
    // Acknowledge at once and take the button away (the answer's 👍 and 👎 stay).
    await interaction.deferUpdate();
    const votes = votesOn(interaction.message);
    await interaction.editReply({ components: votes ? [voteRow(votes)] : [] });
    const scope = scopeOf(interaction, interaction.member);
    const input = turns.checkInput(scope, CONTINUE_TEXT);
    if (!input.ok) return;
    await turns.start({
      kind: 'continue',
      interaction,
      thread,
      unclaim: () => turns.claims.release(key),
      request: {
        scope,
        author: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) },
        text: input.text,
        logFields: { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, threadId: thread.id, userId: interaction.user.id },
      },
    });
  },
} satisfies ButtonEntry<{ turns: Pick<Turns, 'start' | 'checkInput'> & { claims: OneTimeClaims } }>;
