/**
 * Continue past the step limit: its custom id, its builder and its handler. A run that stopped at its
 * step limit answers from what it had, and its answer carries a Continue button: the person who asked
 * may press it to go on from the thread's memory with a fresh step budget. It goes through the turn
 * starter like any message, so usage limits count it.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags } from 'discord.js';
import type { RunScope } from '../../policy/index.js';
import type { Author } from '../../state/index.js';
import { customIdRest, type ButtonEntry } from '../interaction-entry.js';
import { displayNameOf, scopeOf } from '../interaction-info.js';
import { NO_MENTIONS } from '../posting/mention-words.js';
import { threadTarget, type TurnTarget } from '../posting/target.js';
import { privateNotice, type TurnOutcome } from '../turn/outcome.js';

/** What the continuing turn says, as the starter's message (stored, so the thread's memory shows it). */
export const CONTINUE_TEXT = 'Continue: you stopped at the step limit. Carry on from what you have found so far, with a fresh set of steps.';

/**
 * What Continue uses of the turn starter (`Turns` in turn/pipeline.ts, which has all of it). Said here rather
 * than imported: the turn runner builds this button, so importing the starter would close a circle.
 */
export interface ContinueTurns {
  claimOnce(key: string): boolean;
  releaseClaim(key: string): void;
  start(origin: {
    request: { scope: RunScope; author: Author; text: string; logFields: Record<string, string | undefined> };
    place(text: string): Promise<{ target: TurnTarget }>;
  }): Promise<TurnOutcome>;
}

export const continueButton = {
  kind: 'button',
  prefix: 'continue:',

  /** The row with the button under a step-limited answer; only `starterId` may press it. */
  build(starterId: string) {
    return new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${continueButton.prefix}${starterId}`).setLabel('Continue').setStyle(ButtonStyle.Primary),
    );
  },

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
    if (!turns.claimOnce(`continue:${interaction.message.id}`)) {
      await interaction.deferUpdate().catch(() => undefined);
      return;
    }
    // Acknowledge at once and take the button away.
    await interaction.deferUpdate();
    await interaction.editReply({ components: [] });
    const outcome = await turns.start({
      request: {
        scope: scopeOf(interaction, interaction.member),
        author: { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) },
        text: CONTINUE_TEXT,
        logFields: { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, threadId: thread.id, userId: interaction.user.id },
      },
      place: async () => ({ target: threadTarget(thread) }),
    });
    if (outcome.kind === 'refused') {
      // Refused (a usage limit): the button comes back, so it can be pressed again later.
      turns.releaseClaim(`continue:${interaction.message.id}`);
      await interaction.editReply({ components: [continueButton.build(starterId)] }).catch(() => undefined);
    }
    const notice = privateNotice(outcome);
    if (notice) await interaction.followUp({ content: notice, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  },
} satisfies ButtonEntry<{ turns: ContinueTurns }>;
