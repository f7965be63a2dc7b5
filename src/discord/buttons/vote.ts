/**
 * 👍 and 👎 under an answer (their looks are in posting/run-components.ts): one vote per member per
 * answer, changed by pressing the other. 👍 is recorded at once; 👎 opens a form for an optional reason
 * (at most 300 characters: the text input's own limit, checked again here on submit) and counts as soon
 * as it is pressed. The custom ids carry the turn's id and the record is in the shared storage, so the
 * buttons work in whichever process holds the server, after a restart too. Every answer is private: no
 * one else learns who voted, and the answer's message is never changed by a vote.
 */
import { LabelBuilder, MessageFlags, ModalBuilder, TextInputBuilder, TextInputStyle, type ButtonInteraction } from 'discord.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { oneLineEntry, type FeedbackStore, type VoteOutcome } from '../../state/index.js';
import { customIdRest, type ButtonEntry, type ModalEntry } from '../interaction-entry.js';
import { VOTE_PREFIX, VOTE_REASON_PREFIX, voteRow } from '../posting/run-components.js';
import { cutText, TEXT_CAPS } from '../../agent/text-caps.js';

/** What the handlers use: the feedback store, and the logger for a 👎 whose write failed behind its form. */
interface VoteServices {
  turns: { feedback: Pick<FeedbackStore, 'vote'> };
  runtime: { logger: Logger };
}

const REASON_FIELD = 'reason';
const PRIVATE = 'Only you see this; moderators see counts and reasons, never who voted.';
const NO_RECORD = 'I have no record of this answer (it is older than this server keeps conversations, or it could not be kept when it was given), so it cannot be rated. Nothing was changed.';

export const voteButtons = {
  kind: 'button',
  prefix: VOTE_PREFIX,
  build: voteRow,

  async handle(interaction, { turns: { feedback }, runtime: { logger } }): Promise<void> {
    const [turnId = '', direction] = customIdRest({ prefix: VOTE_PREFIX }, interaction.customId).split(':');
    if (!interaction.guildId || !turnId || (direction !== 'up' && direction !== 'down')) {
      await interaction.reply({ content: 'This button does not belong to an answer I know.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (direction === 'down') return thumbsDown(interaction, interaction.guildId, turnId, feedback, logger);
    // Acknowledged before storage is touched (Discord allows 3 seconds), privately.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const voted = await feedback.vote(interaction.guildId, turnId, interaction.user.id, { vote: 'up', on: interaction.message.id }).catch(failed);
    await interaction.editReply({ content: said(voted, '👍') });
  },
} satisfies ButtonEntry<VoteServices>;

/** 👎: the form for a reason goes up at once (a form must be Discord's first answer), then the vote is kept. */
async function thumbsDown(interaction: ButtonInteraction, guildId: string, turnId: string, feedback: VoteServices['turns']['feedback'], logger: Logger): Promise<void> {
  const reason = new TextInputBuilder().setCustomId(REASON_FIELD).setStyle(TextInputStyle.Paragraph).setRequired(false).setMaxLength(TEXT_CAPS.feedbackReason)
    .setPlaceholder('Wrong, out of date, did not answer the question…');
  await interaction.showModal(
    new ModalBuilder()
      .setCustomId(`${VOTE_REASON_PREFIX}${turnId}`)
      .setTitle('What was wrong with this answer?')
      .addLabelComponents(new LabelBuilder().setLabel('Why? (optional)').setDescription(`Your 👎 counts already. ${PRIVATE}`).setTextInputComponent(reason)),
  );
  // Pressed again, a 👎 keeps the reason it has; a write that fails here is made again by the form's submit.
  await feedback.vote(guildId, turnId, interaction.user.id, { vote: 'down', on: interaction.message.id }).catch((error: unknown) => {
    logger.warn({ err: error, interactionId: interaction.id, guildId, turnId }, 'could not record a 👎 (the reason form will try again)');
  });
}

export const voteReasonModal = {
  kind: 'modal',
  prefix: VOTE_REASON_PREFIX,

  async handle(interaction, { turns: { feedback } }): Promise<void> {
    const turnId = customIdRest({ prefix: VOTE_REASON_PREFIX }, interaction.customId);
    if (!interaction.guildId || !turnId) {
      await interaction.reply({ content: 'This form does not belong to an answer I know. Nothing was recorded.', flags: MessageFlags.Ephemeral });
      return;
    }
    const typed = interaction.fields.getTextInputValue(REASON_FIELD);
    // Discord's client keeps to the input's limit; a modified one might not, and nothing longer is kept.
    const length = [...typed].length;
    if (length > TEXT_CAPS.feedbackReason) return void (await interaction.reply({ content: tooLong(typed, length), flags: MessageFlags.Ephemeral }));
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const voted = await feedback.vote(interaction.guildId, turnId, interaction.user.id, { vote: 'down', reason: oneLineEntry(typed, TEXT_CAPS.feedbackReason).text, ...(interaction.message ? { on: interaction.message.id } : {}) }).catch(failed);
    await interaction.editReply({ content: said(voted, '👎', typed.trim() !== '') });
  },
} satisfies ModalEntry<VoteServices>;

/** A vote the storage could not take. */
type Failed = { status: 'failed'; error: unknown };
const failed = (error: unknown): Failed => ({ status: 'failed', error });

/** What the member hears of their vote. */
function said(outcome: VoteOutcome | Failed, vote: '👍' | '👎', withReason = false): string {
  if (outcome.status === 'failed') return `❌ I could not record your ${vote} (${describeError(outcome.error)}). Nothing was changed; press it again in a moment.`;
  if (outcome.status === 'missing') return NO_RECORD;
  const changed = outcome.before && outcome.before !== (vote === '👍' ? 'up' : 'down') ? ` (it was ${outcome.before === 'up' ? '👍' : '👎'})` : '';
  return `${vote} Recorded${withReason ? ', with your reason' : ''}${changed}. Thanks! Press the other button to change it. ${PRIVATE}`;
}

/** A reason past the limit: refused, with the text given back so nothing typed is lost. */
function tooLong(typed: string, length: number): string {
  const shown = cutText(typed, TEXT_CAPS.feedbackReasonEcho);
  return `Your reason is ${length.toLocaleString('en-US')} characters; I keep at most ${TEXT_CAPS.feedbackReason}. Your 👎 counts already; press 👎 again to give a shorter reason. What you wrote:\n\`\`\`\n${shown.replace(/`/g, "'")}\n\`\`\``;
}
