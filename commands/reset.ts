/**
 * /reset — forget this thread's conversation, after a confirmation button. Allowed for the member who
 * opened the thread (its starter, recorded when the thread was made and kept across resets) and for
 * members who can manage threads or the server; anyone else is told who may. A run going on in the
 * thread is stopped first and nothing of it is saved (even the thread's first run), messages waiting
 * for an answer are given up, runs waiting for approval end (a first run that waits too: nothing of it
 * is saved yet, so the waits are counted from the shared storage), and the thread always says who
 * cleared its memory and what was given up: the memory is never wiped without that note. The thread
 * leaves past-thread search with it, and its answers' questions, answers and 👎 reasons leave the
 * feedback records (their votes stay counted).
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  InteractionContextType,
  SlashCommandBuilder,
  MessageFlags,
  PermissionFlagsBits,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type PermissionsBitField,
} from 'discord.js';
import { escapeDisplayName } from '../src/agent/clean-text.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import type { Runtime, TurnServices } from '../src/discord/services.js';
import type { Dropped } from '../src/discord/turn/pipeline.js';
import { describeError } from '../src/errors.js';

const PREFIX = 'reset:';
const WHO_MAY = 'Only the person who started this conversation, or a member who can manage threads or the server, can reset it.';

type ResetServices = { turns: Pick<TurnServices, 'conversations' | 'queue' | 'runs' | 'waiting' | 'approvalsWaiting' | 'dropWaiting' | 'memory' | 'feedback'>; runtime: Pick<Runtime, 'logger'> };

/**
 * The thread's starter: as recorded when the thread was opened. A thread from before starters were
 * recorded falls back to the author of its first remembered message, and that is then recorded, so a
 * reset cannot hand the thread to whoever speaks next.
 */
async function starterOf(threadId: string, ctx: ResetServices, firstAuthor: string | undefined): Promise<string | undefined> {
  const recorded = await ctx.turns.conversations.starter(threadId);
  if (recorded || !firstAuthor) return recorded;
  await ctx.turns.conversations.setStarter(threadId, firstAuthor);
  return firstAuthor;
}

/** Why this member may not reset this thread, or undefined when they may. */
async function refusal(interaction: ChatInputCommandInteraction | ButtonInteraction, threadId: string, ctx: ResetServices): Promise<string | undefined> {
  const { messages } = await ctx.turns.conversations.load(threadId);
  // A thread's first run has saved nothing yet, even when it waits for approval: it counts all the same.
  const busy = ctx.turns.runs.inThread(threadId).length > 0 || ctx.turns.waiting(threadId) > 0 || (await ctx.turns.approvalsWaiting(threadId)) > 0;
  if (messages.length === 0 && !busy) return 'There is nothing to reset: I have not answered anything in this thread yet.';
  const moderator = (p: Readonly<PermissionsBitField> | null) => p?.has(PermissionFlagsBits.ManageThreads) || p?.has(PermissionFlagsBits.ManageGuild);
  const starter = await starterOf(threadId, ctx, messages.find((m) => m.role === 'user')?.author?.id);
  if (interaction.user.id === starter || moderator(interaction.memberPermissions)) return undefined;
  return `${WHO_MAY} Nothing was changed.`;
}

export const reset: Command = {
  data: new SlashCommandBuilder()
    .setName('reset')
    .setDescription("Forget this thread's conversation (asks for confirmation).")
    .setContexts(InteractionContextType.Guild),

  async execute(interaction, ctx) {
    const channel = interaction.channel;
    if (!channel?.isThread()) {
      await interaction.reply({ content: '/reset works inside a thread where I answer: it makes me forget that thread\'s conversation.', flags: MessageFlags.Ephemeral });
      return;
    }
    // Acknowledge before reading or writing storage (the thread's memory and starter).
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    // One of my threads, or a member's thread or forum post where I have a conversation (its asker recorded).
    const mine = channel.ownerId === interaction.client.user.id || (await ctx.turns.conversations.starter(channel.id).catch(() => undefined)) !== undefined;
    if (!mine) {
      await interaction.editReply({ content: 'There is nothing to reset: I have no conversation in this thread.' });
      return;
    }
    const refused = await refusal(interaction, channel.id, ctx).catch((error) => `I could not read this thread's memory (${describeError(error)}). Nothing was changed.`);
    if (refused) {
      await interaction.editReply({ content: refused });
      return;
    }
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${PREFIX}confirm:${channel.id}`).setLabel('Forget this thread').setStyle(ButtonStyle.Danger),
      new ButtonBuilder().setCustomId(`${PREFIX}cancel`).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
    );
    const running = ctx.turns.runs.inThread(channel.id).length > 0 ? ' The question I am working on here is stopped first.' : '';
    const approvals = await ctx.turns.approvalsWaiting(channel.id).catch(() => 0);
    const waits = approvals === 0 ? '' : approvals === 1 ? ' The run waiting for approval here is ended first.' : ` The ${approvals} runs waiting for approval here are ended first.`;
    const busy = running + waits;
    await interaction.editReply({
      content: `Forget everything said in this thread so far? I will answer the next message as if the thread were new.${busy}`,
      components: [row],
    });
  },

  buttons: {
    prefix: PREFIX,
    async handle(interaction, ctx) {
      const [, action, threadId] = interaction.customId.split(':');
      if (action !== 'confirm' || !threadId) {
        await interaction.update({ content: 'Cancelled: nothing was forgotten.', components: [] });
        return;
      }
      // Acknowledge at once: a run may be busy in the thread, and Discord allows 3 seconds.
      await interaction.deferUpdate();
      const say = (content: string) => interaction.editReply({ content, components: [] }).then(() => undefined);
      const thread = interaction.channel;
      if (!thread?.isThread() || thread.id !== threadId) return say('This button belongs to another thread. Nothing was changed.');
      const refused = await refusal(interaction, threadId, ctx).catch((error) => `I could not read this thread's memory (${describeError(error)}). Nothing was changed.`);
      if (refused) return say(refused);
      const name = escapeDisplayName(displayNameOf(interaction.member, interaction.user));
      let dropped: Dropped;
      try {
        // Give up what waits, stop what runs (it saves nothing), then reset in the thread's queue: before anything new.
        dropped = await ctx.turns.dropWaiting(interaction.client, threadId);
        for (const run of ctx.turns.runs.inThread(threadId)) ctx.turns.runs.stop(run.id, 'reset');
        const unanswered = givenUp(dropped).map((part) => ` ${part[0]!.toUpperCase()}${part.slice(1)} with it.`).join('');
        await ctx.turns.queue.run(threadId, async () => {
          // The note first: if it cannot be posted, nothing is wiped; if the wipe fails, the note goes.
          const note = await thread.send({ content: `🧹 **${name}** cleared my memory of this thread. I start fresh from here.${unanswered}`, allowedMentions: NO_MENTIONS });
          try {
            // Out of past-thread search and the answers kept for rating first: a thread whose words could
            // not be removed there is not wiped either.
            await ctx.turns.memory.threads?.forget(threadId);
            await ctx.turns.feedback.forgetThread(threadId);
            await ctx.turns.conversations.reset(threadId);
          } catch (error) {
            await note.delete().catch(() => undefined);
            throw error;
          }
        }, { maxWaitMs: 30_000 });
      } catch (error) {
        return say(`I could not forget this thread (${describeError(error)}), so nothing was changed: I never wipe a thread's memory without saying so there.`);
      }
      const ended = givenUp(dropped);
      await say(`Done: this thread's memory is cleared${ended.length ? `, and ${ended.join(' and ')}` : ''}.`);
    },
  },
};

/** What a reset gave up, counted, for the thread's note and the person who reset. */
function givenUp({ messages, approvals }: Dropped): string[] {
  const parts: string[] = [];
  if (messages) parts.push(`${messages === 1 ? 'the message' : `the ${messages} messages`} waiting for an answer ${messages === 1 ? 'was' : 'were'} dropped`);
  if (approvals) parts.push(`${approvals === 1 ? 'the run' : `the ${approvals} runs`} waiting for approval ${approvals === 1 ? 'was' : 'were'} ended`);
  return parts;
}
