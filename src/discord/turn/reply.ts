/**
 * What the person who started a turn sees where they asked: the headline announcing the question, and,
 * when the turn ends, what they hear, for each origin, decided in this one place:
 * each outcome is read once, here. The thread itself already shows the steps and the answer (or what
 * went wrong); this is the rest: the /ask reply in the channel pointing at the answer, a private
 * refusal, a reply under a follow-up that could not be taken, the Continue button given back.
 */
import { MessageFlags, type Client } from 'discord.js';
import { NO_MENTIONS } from '../members.js';
import { answerRow, votesOn } from '../posting/run-components.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { graphemeBoundary, TEXT_CAPS } from '../../agent/text-caps.js';
import { closeOpenFence, fitMessage, quotePreview } from '../posting/split-message.js';
import { placeMessages, type MessageRef } from '../posting/target.js';
import type { TurnOrigin } from './origin.js';
import type { TurnOutcome } from './outcome.js';

/**
 * The line that announces a question where everyone sees it (the /ask reply, the first message of an
 * Ask-about thread): who asked and what, cut to leave room for what follows, never leaving a code block
 * open to swallow it.
 */
/** `**Alice** asked: …` (or `asked about this message`), the question cut at 1,500 characters. */
export function headline(name: string, question: string, verb = 'asked'): string {
  const q = closeOpenFence(question.length > TEXT_CAPS.quotedQuestion ? `${question.slice(0, graphemeBoundary(question, TEXT_CAPS.quotedQuestion - 1))}…` : question);
  return fitMessage(`**${escapeDisplayName(name)}** ${verb}: ${q}`);
}

/** How a skill's run is announced: `**Alice** ran the skill: /incident-summary incident: …`. */
export const SKILL_VERB = 'ran the skill';

/** What the reply needs of the turn besides its outcome. */
export interface ReplyContext {
  /** The asker's name and the question as admitted, for the /ask reply's headline. */
  name: string;
  question: string;
  /** A line the /ask reply carried from the start (why it answers here rather than in a thread): kept. */
  notice?: string;
  /** How the headline announces the turn (`asked` unless said). */
  verb?: string;
}

export async function replyFor(origin: TurnOrigin, outcome: TurnOutcome, ctx: ReplyContext): Promise<void> {
  switch (origin.kind) {
    case 'ask':
      return replyToAsk(origin.interaction, outcome, ctx);
    case 'skill':
      return replyToAsk(origin.interaction, outcome, { ...ctx, verb: SKILL_VERB });
    case 'ask-about': {
      // The reply is private already: why nothing was asked replaces it; a later reason follows it.
      const { interaction } = origin;
      if (outcome.kind === 'refused' || outcome.kind === 'unable') return void (await interaction.editReply({ content: outcome.message, allowedMentions: NO_MENTIONS }).catch(() => undefined));
      if (outcome.kind === 'busy' || outcome.kind === 'stopped') await privately(origin.interaction, outcome.message);
      return;
    }
    case 'continue':
      // Refused (a usage limit): the button comes back, so it can be pressed again later.
      if (outcome.kind === 'refused') {
        origin.unclaim();
        const votesFor = votesOn(origin.interaction.message);
        await origin.interaction.editReply({ components: [answerRow({ continueFor: origin.request.author.id, ...(votesFor ? { votesFor } : {}) })] }).catch(() => undefined);
      }
      if (outcome.kind === 'refused' || outcome.kind === 'busy' || outcome.kind === 'unable') await privately(origin.interaction, outcome.message);
      return;
    case 'mention':
      // The thread on the message shows the rest; what was not taken is said under the message.
      if (outcome.kind === 'refused' || outcome.kind === 'busy' || outcome.kind === 'unable') await origin.tell(outcome.message);
      return;
    case 'schedule':
      // The schedule's runner reads the outcome: a run that could not happen pauses its schedule.
      return;
    case 'follow-up':
      // Answered, stopped or failed: the thread shows it. Not taken (a limit, a thread too busy): the
      // person is told why, under their message.
      if (outcome.kind === 'refused' || outcome.kind === 'busy') await origin.tell(outcome.message);
      return;
    case 'resume': {
      // Whoever asked is long gone from the interaction: why it could not go on is said in its thread,
      // and an /ask's reply in the channel points at the answer, as it would have without the wait.
      const { client, turn } = origin;
      const why = outcome.kind === 'refused' ? `⏹️ I could not go on with this run: ${outcome.message}` : outcome.kind === 'busy' || outcome.kind === 'unable' ? outcome.message : undefined;
      if (why) await placeMessages(client, turn.place).post(why).catch(() => undefined);
      if ((turn.kind === 'ask' || turn.kind === 'skill') && turn.reply) await linkBackLater(client, turn.reply, turn.kind === 'skill' ? { ...ctx, verb: SKILL_VERB } : ctx, outcome);
      return;
    }
  }
}

/** The private answer to an interaction that was acknowledged already. */
async function privately(interaction: { followUp(options: { content: string; flags: MessageFlags.Ephemeral; allowedMentions: typeof NO_MENTIONS }): Promise<unknown> }, content: string): Promise<void> {
  await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).catch(() => undefined);
}

type AskInteraction = Extract<TurnOrigin, { kind: 'ask' }>['interaction'];

async function replyToAsk(interaction: AskInteraction, outcome: TurnOutcome, ctx: ReplyContext): Promise<void> {
  const inThread = interaction.channel?.isThread() ?? false;
  const edit = (content: string) => interaction.editReply({ content, allowedMentions: NO_MENTIONS }).then(() => undefined, () => undefined);
  switch (outcome.kind) {
    case 'refused':
      // A refusal is for the asker's eyes only: the public "thinking…" reply gives way to a private one.
      await interaction.deleteReply().catch(() => undefined);
      return privately(interaction, outcome.message);
    case 'busy':
    case 'unable':
      // The reply may already show the question (a thread that closed meanwhile): the reason goes privately.
      return privately(interaction, outcome.message);
    case 'stopped':
      // Stopped where it could post no more: the reply in the channel says so. A reply inside that
      // thread is left alone: nothing more goes into a closed thread.
      if (!inThread) await edit(fitMessage(`${headline(ctx.name, ctx.question, ctx.verb)}\n-# ⏹️ ${outcome.message}`));
      return;
    case 'waiting':
      if (!inThread) await edit(withNotice(fitMessage(`${headline(ctx.name, ctx.question, ctx.verb)}\n-# 🔐 ${outcome.message}`), ctx.notice));
      return;
    case 'answered':
      return edit(linkBack(ctx, outcome.answer, { url: outcome.answerMessage.url }));
    case 'failed':
      // The thread refused the answer (a permission taken away): the channel's reply carries its start.
      if (outcome.answer && !inThread) await edit(linkBack(ctx, outcome.answer, { failure: outcome.message }));
  }
}

/**
 * The channel reply once a resumed turn (an approval decided, maybe hours later) has answered: edited
 * through the channel, since the /ask interaction's token is long gone by then.
 */
async function linkBackLater(client: Client, reply: MessageRef, ctx: ReplyContext, outcome: TurnOutcome): Promise<void> {
  if (outcome.kind !== 'answered') return;
  const channel = await client.channels.fetch(reply.channelId).catch(() => null);
  if (!channel || channel.isThread() || !('messages' in channel)) return;
  await channel.messages.edit(reply.messageId, { content: linkBack(ctx, outcome.answer, { url: outcome.answerMessage.url }), allowedMentions: NO_MENTIONS }).catch(() => undefined);
}

/**
 * The reply showing the answer's start with a link to it in the thread. When the thread refused the
 * answer (a permission taken away mid-run), it carries the answer's start and what went wrong instead,
 * so the answer is not lost. A notice the reply had (no thread could be opened) stays under it.
 */
function linkBack(ctx: ReplyContext, answer: string, where: { url: string } | { failure: string }): string {
  const head = headline(ctx.name, ctx.question, ctx.verb);
  const link = 'url' in where ? `\n-# Full answer and steps: ${where.url}` : `\n-# ⚠️ ${where.failure}`;
  const notice = ctx.notice ? `\n-# ⚠️ ${ctx.notice}` : '';
  const room = 2000 - head.length - link.length - notice.length - 4;
  const preview = room < 80 ? '' : `\n${quotePreview(answer.trim(), room)}`;
  return fitMessage(`${head}${preview}${link}${notice}`);
}

function withNotice(text: string, notice?: string): string {
  return notice ? fitMessage(`${text}\n-# ⚠️ ${notice}`) : text;
}

/** After this long without an answer from storage, the /ask reply says why nothing has happened yet. */
const SLOW_ADMISSION_MS = 2_000;

/** Until `stop()`, an /ask (or skill) reply says after a while that storage is slow (the turn's place replaces it). */
export function slowAdmissionNotice(origin: TurnOrigin): { stop(): void } {
  if (origin.kind !== 'ask' && origin.kind !== 'skill') return { stop: () => undefined };
  const timer = setTimeout(() => {
    void origin.interaction.editReply({ content: '-# ⏳ Checking your usage limits is taking longer than usual (my storage is slow to answer). I start as soon as it does.', allowedMentions: NO_MENTIONS }).catch(() => undefined);
  }, SLOW_ADMISSION_MS);
  return { stop: () => clearTimeout(timer) };
}
