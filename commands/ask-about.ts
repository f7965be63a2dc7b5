/**
 * Apps → "Ask about this message": the question is asked in a modal, then the bot opens a thread on
 * that message and answers there with the message's text and files as context. It goes through the
 * turn starter like /ask, so usage limits, the DM rule and the input checks all apply.
 */
import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type Message,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { MessageCommand } from '../src/discord/command.js';
import { attachmentsOf } from '../src/discord/messages/follow-ups.js';
import { displayNameOf, scopeOf, cachedMentionNames, threadName } from '../src/discord/interaction-info.js';
import type { AskedAbout } from '../src/discord/pending-asks.js';
import { commandPlaceProblem } from '../src/discord/posting/preflight.js';
import { headline } from '../src/discord/text/headline.js';
import type { BotServices } from '../src/discord/services.js';
import { NO_MENTIONS } from '../src/discord/posting/mention-words.js';
import { interactionTarget, threadTarget } from '../src/discord/posting/target.js';
import type { TurnPlace } from '../src/discord/turn/pipeline.js';

const PREFIX = 'ask-about:';
export const askAbout: MessageCommand = {
  data: new ContextMenuCommandBuilder()
    .setName('Ask about this message')
    .setType(ApplicationCommandType.Message)
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM),

  async execute(interaction, { turns: { pendingAsks } }) {
    const target = interaction.targetMessage;
    // The text is read now: the command sees it even without the Message Content intent; a later fetch may not.
    pendingAsks.put(interaction.user.id, aboutOf(target));
    const modal = new ModalBuilder()
      .setCustomId(`${PREFIX}${target.id}`)
      .setTitle('Ask about this message')
      .addLabelComponents(
        new LabelBuilder()
          .setLabel('Your question')
          .setDescription('I open a thread on the message and answer there, with its text and files in mind.')
          .setTextInputComponent(new TextInputBuilder().setCustomId('question').setStyle(TextInputStyle.Paragraph).setMaxLength(4000).setRequired(true)),
      );
    await interaction.showModal(modal);
  },

  modals: {
    prefix: PREFIX,
    async handle(interaction, services) {
      const messageId = interaction.customId.slice(PREFIX.length);
      const about = services.turns.pendingAsks.take(interaction.user.id, messageId) ?? (await fetchAbout(interaction, messageId));
      if (!about) {
        await interaction.reply({ content: 'I can no longer see that message (it may have been deleted). Nothing was asked.', flags: MessageFlags.Ephemeral });
        return;
      }
      await ask(interaction, services, about, interaction.fields.getTextInputValue('question'));
    },
  },
};

function aboutOf(message: Message): AskedAbout {
  return {
    channelId: message.channelId,
    messageId: message.id,
    authorName: displayNameOf(message.member, message.author),
    content: message.content,
    url: message.url,
    attachments: attachmentsOf(message),
    ...(message.hasThread && message.thread ? { threadId: message.thread.id } : {}),
  };
}

/** The message fetched again (the modal outlived what the bot kept, e.g. across a restart). */
async function fetchAbout(interaction: ModalSubmitInteraction, messageId: string): Promise<AskedAbout | undefined> {
  const channel = interaction.channel;
  if (!channel || !('messages' in channel)) return undefined;
  const message = await channel.messages.fetch(messageId).catch(() => undefined);
  return message ? aboutOf(message) : undefined;
}

/** The message as context for the model: who wrote it, and its text. */
function contextOf(about: AskedAbout): string {
  const body = about.content.trim() ? about.content : '(no text)';
  return `[The message this question is about, written by ${about.authorName}:]\n${body}\n[end of the message]`;
}

async function ask(interaction: ModalSubmitInteraction, services: Pick<BotServices, 'turns' | 'runtime'>, about: AskedAbout, question: string): Promise<void> {
  const { turns } = services;
  const { logger } = services.runtime;
  const name = displayNameOf(interaction.member, interaction.user);
  const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id, messageId: about.messageId };
  const scope = scopeOf(interaction, interaction.member);
  const channel = interaction.channel;
  const dm = !interaction.guildId || !channel;
  const inThread = !dm && channel.isThread();
  // What needs no storage is refused at once, privately: the question, a message that has a thread, a
  // channel where the bot cannot open or post in one.
  const problem = turns.checkInput({ scope, text: question }) ?? (dm ? undefined : placeProblem(interaction, about, inThread));
  if (problem) {
    if (!dm) logger.warn({ ...logFields, problem }, 'Ask about this message: refused before any model call');
    return void (await interaction.reply({ content: problem, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
  }
  // Acknowledged before the limits touch storage; privately, as the refusal or "I am answering in #thread" is for the asker.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const outcome = await turns.start({
    request: { scope, author: { id: interaction.user.id, name }, text: question, logFields, context: contextOf(about), attachments: about.attachments },
    place: async (text): Promise<TurnPlace> => {
      // A DM (with ALLOW_DMS): no thread; the answer comes through the interaction.
      if (dm) {
        await interaction.editReply({ content: headline(name, text, 'asked about this message'), allowedMentions: NO_MENTIONS });
        return { target: interactionTarget(interaction) };
      }
      try {
        const thread = inThread
          ? channel
          : 'threads' in channel
            ? await channel.threads.create({ startMessage: about.messageId, name: threadName(text, cachedMentionNames(interaction.guild)), autoArchiveDuration: 1440 })
            : undefined;
        if (!thread?.isThread()) throw new Error('this kind of channel has no threads');
        // A thread opened here is the asker's for good: `/reset` goes by this, whoever speaks first after one.
        if (!inThread) await turns.conversations.setStarter(thread.id, interaction.user.id).catch((error) => logger.warn({ err: error, ...logFields, threadId: thread.id }, 'could not record the thread\'s starter'));
        const announced = await thread.send({ content: headline(name, text, 'asked about this message'), allowedMentions: NO_MENTIONS });
        await interaction.editReply({ content: `I am answering in <#${thread.id}>.` });
        return { target: threadTarget(thread), reply: { channelId: announced.channelId, messageId: announced.id } };
      } catch (error) {
        logger.warn({ err: error, ...logFields }, 'Ask about this message: could not open a thread');
        return { unable: `I could not open a thread on that message: ${error instanceof Error ? error.message : String(error)}. Nothing was asked.` };
      }
    },
  });
  // The reply is private already: why nothing was asked replaces it; a later reason follows it.
  if (outcome.kind === 'refused' || outcome.kind === 'unable') return void (await interaction.editReply({ content: outcome.message, allowedMentions: NO_MENTIONS }).catch(() => undefined));
  if (outcome.kind === 'busy' || outcome.kind === 'stopped') await interaction.followUp({ content: outcome.message, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).catch(() => undefined);
}

/** Why the bot cannot answer about this message here (checked before anything is stored), or undefined. */
function placeProblem(interaction: ModalSubmitInteraction, about: AskedAbout, inThread: boolean): string | undefined {
  const channel = interaction.channel!;
  if (about.threadId && about.threadId !== channel.id) return `That message already has a thread: <#${about.threadId}>. Ask there with /ask.`;
  const missing = commandPlaceProblem(inThread ? 'thread' : 'new thread', interaction.appPermissions);
  if (missing) return missing;
  if (inThread && channel.isThread() && channel.locked) return 'This thread is locked, so I cannot answer here.';
  return undefined;
}

