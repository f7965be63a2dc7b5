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
import { attachmentsOf } from '../src/discord/messages/message-text.js';
import { displayNameOf, scopeOf, NO_MENTIONS } from '../src/discord/members.js';
import type { AskedAbout } from '../src/discord/pending-asks.js';
import { commandPlaceProblem } from '../src/discord/posting/permissions.js';
import type { BotServices } from '../src/discord/services.js';

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
  const logFields = { interactionId: interaction.id, guildId: interaction.guildId ?? undefined, userId: interaction.user.id, messageId: about.messageId };
  const scope = scopeOf(interaction, interaction.member);
  const dm = !interaction.guildId || !interaction.channel;
  // What needs no storage is refused at once, privately: the question, a message that has a thread, a
  // channel where the bot cannot open or post in one.
  const input = turns.checkInput(scope, question);
  const problem = input.ok ? (dm ? undefined : placeProblem(interaction, about, interaction.channel!.isThread())) : input.message;
  if (problem || !input.ok) {
    if (!dm) logger.warn({ ...logFields, problem }, 'Ask about this message: refused before any model call');
    return void (await interaction.reply({ content: problem ?? '', flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }));
  }
  // Acknowledged before the limits touch storage; privately, as the refusal or "I am answering in #thread" is for the asker.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const author = { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) };
  await turns.start({ kind: 'ask-about', interaction, about, request: { scope, author, text: input.text, logFields, context: contextOf(about), attachments: about.attachments } });
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

