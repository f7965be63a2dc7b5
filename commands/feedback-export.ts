/**
 * `/feedback export [days:]`: the rated answers of the last days as an evaluation suite, a private JSONL
 * file (src/eval/feedback-cases.ts writes the cases and checks them with the suite reader). Each case
 * carries the thread's messages before its question (read from the thread's memory now), the channel's
 * name as a tag, a link to the answer; no member ids. Every export is in `/tools audit`.
 */
import { AttachmentBuilder, PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import type { ContentPart } from '../src/agent/types.js';
import { displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import type { BotServices } from '../src/discord/services.js';
import { answerLink } from '../src/discord/text/feedback-text.js';
import { feedbackSuite, type VotedAnswer } from '../src/eval/feedback-cases.js';
import { TAKEN_BACK, type FeedbackRecord, type StoredMessage } from '../src/state/index.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type ExportServices = Pick<BotServices, 'turns' | 'rules' | 'runtime'>;

/** Export the rated answers since `window.since` (at most `limit` answers read). */
export async function exportFeedback(interaction: GuildCommand, ctx: ExportServices, window: { days: number; since: number }, limit: number): Promise<void> {
  const { guildId } = interaction;
  const { records, more } = await ctx.turns.feedback.list(guildId, window.since, limit);
  const rated = records.filter((r) => Object.keys(r.votes).length > 0 && !r.removed).reverse();
  const span = `the last ${window.days} day${window.days === 1 ? '' : 's'}`;
  if (rated.length === 0) {
    await interaction.editReply({ content: `No rated answers in ${span}: nothing to export. Members rate an answer with the 👍 and 👎 under it.`, allowedMentions: NO_MENTIONS });
    return;
  }
  const histories = new Map<string, StoredMessage[]>();
  const answers: VotedAnswer[] = [];
  for (const record of rated) answers.push({ record, ...nameOf(interaction, record), history: await historyBefore(ctx, record, histories), link: answerLink(record) });
  const { body, cases } = feedbackSuite(answers);
  const file = `threadwise-feedback-${guildId}-${ctx.runtime.now().toISOString().slice(0, 10)}.jsonl`;
  const actor = { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) };
  await ctx.rules.recordAction(guildId, actor, { action: 'feedback-export', detail: `exported ${cases} rated answer${cases === 1 ? '' : 's'} of ${span} as an evaluation suite` }, { logChannel: false })
    .catch((error) => ctx.runtime.logger.warn({ err: error, guildId }, 'could not audit a feedback export'));
  const counted = more ? ` (of the newest ${limit.toLocaleString('en-US')} answers)` : '';
  if (!interaction.appPermissions.has(PermissionFlagsBits.AttachFiles) || Buffer.byteLength(body) > interaction.attachmentSizeLimit) {
    const why = interaction.appPermissions.has(PermissionFlagsBits.AttachFiles) ? 'it is larger than the files I may send here; ask for fewer days' : 'I may not attach files here (I am missing the Attach Files permission; a moderator can grant it)';
    await interaction.editReply({ content: `I have ${cases} rated answers of ${span}${counted}, but cannot send the file: ${why}. Nothing was exported.`, allowedMentions: NO_MENTIONS });
    return;
  }
  await interaction.editReply({
    content: [
      `${cases} rated answer${cases === 1 ? '' : 's'} of ${span}${counted}, as an evaluation suite only you see: one case each, the 👎 ones graded by a judge model against their reasons, the 👍 ones checked for their key words.`,
      `Run them again on any model: \`npm run eval -- ${file} --model <name>\` (see docs/feedback-and-evaluations.md).`,
    ].join('\n'),
    files: [new AttachmentBuilder(Buffer.from(body, 'utf8'), { name: file, description: 'Rated answers as an evaluation suite' })],
    allowedMentions: NO_MENTIONS,
  });
}

/** The answer's channel by its name now (a tag of the case), when the bot's cache has it. */
function nameOf(interaction: GuildCommand, record: FeedbackRecord): { channelName?: string } {
  const name = interaction.client.channels.cache.get(record.channelId);
  return name && 'name' in name && typeof name.name === 'string' ? { channelName: name.name } : {};
}

/** The thread's questions and answers before this one (the text the model had), oldest first. */
async function historyBefore(ctx: ExportServices, record: FeedbackRecord, cache: Map<string, StoredMessage[]>): Promise<VotedAnswer['history']> {
  if (!record.threadId) return [];
  let messages = cache.get(record.threadId);
  if (!messages) {
    messages = (await ctx.turns.conversations.load(record.threadId)).messages;
    cache.set(record.threadId, messages);
  }
  return messages.filter((m) => m.at < record.askedAt).flatMap((m): Array<{ role: 'user' | 'assistant'; content: string }> => {
    if (m.role === 'user') {
      const content = textOf(m.content);
      return content && content !== TAKEN_BACK ? [{ role: 'user', content }] : [];
    }
    // The answers, not the steps: a tool call's message and its results are left out.
    if (m.role === 'assistant' && !m.tool_calls?.length && m.content) return [{ role: 'assistant', content: m.content }];
    return [];
  });
}

function textOf(content: string | ContentPart[]): string {
  return typeof content === 'string' ? content : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}
