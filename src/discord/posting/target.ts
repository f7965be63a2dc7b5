/**
 * Where a turn's messages go. Normally a thread; when the bot may not create one, the interaction's
 * own webhook (follow-ups need no channel permission), so the person still gets an answer.
 */
import type { ActionRowBuilder, AttachmentBuilder, ButtonBuilder, ChatInputCommandInteraction, Client, Message, ModalSubmitInteraction, ThreadChannel } from 'discord.js';
import { PermissionFlagsBits } from 'discord.js';
import { DiscordCode, discordCode } from './discord-errors.js';
import { NO_MENTIONS } from './mention-words.js';
import { missingInThread, threadClosed, threadProblem } from './preflight.js';

export interface Outgoing {
  content: string;
  components?: Array<ActionRowBuilder<ButtonBuilder>>;
  files?: AttachmentBuilder[];
}

export interface TurnTarget {
  /** The conversation this turn belongs to (the thread id), or undefined when there is no memory. */
  conversationKey: string | undefined;
  /** The bot's client (posting to the log channel, for instance). */
  client: Client;
  send(message: Outgoing): Promise<Message>;
  edit(message: Message, update: Outgoing): Promise<void>;
  /** Delete a message the turn posted (a draft that was not the answer after all). */
  remove(message: Message): Promise<void>;
  /** Show "threadwise is typing…" for a few seconds (or until the next message). */
  typing(): Promise<void>;
  /** Whether messages here may carry files (Attach Files). */
  canAttachFiles(): boolean;
  /** Why the turn cannot be answered here now (checked before any model call), or undefined. */
  preflight?(): string | undefined;
  /** The permissions the bot lacks here, of those it needs to post, by name (to say which after a refusal). */
  missingPermissions?(): string[];
}

/** A post refused before it was sent: the thread is deleted or locked, so Discord would refuse it anyway. */
export class ThreadClosedError extends Error {
  constructor(readonly why: 'deleted' | 'locked') {
    super(`the thread is ${why}`);
  }
}

export function threadTarget(thread: ThreadChannel): TurnTarget {
  // An archived (not locked) thread is reopened once, then the send is retried.
  const withUnarchive = async <T>(op: () => Promise<T>): Promise<T> => {
    // Nothing is sent into a deleted or locked thread: no failing requests, no unarchive attempts.
    const closed = threadClosed(thread);
    if (closed) throw new ThreadClosedError(closed);
    try {
      return await op();
    } catch (error) {
      if (discordCode(error) !== DiscordCode.ThreadArchived) throw error;
      await thread.setArchived(false);
      return op();
    }
  };
  return {
    conversationKey: thread.id,
    client: thread.client,
    send: (m) => withUnarchive(() => thread.send({ content: m.content, components: m.components ?? [], files: m.files, allowedMentions: NO_MENTIONS })),
    edit: async (message, m) => {
      await withUnarchive(() => message.edit({ content: m.content, components: m.components ?? [], ...(m.files ? { files: m.files } : {}), allowedMentions: NO_MENTIONS }));
    },
    remove: async (message) => {
      if (threadClosed(thread)) return;
      await message.delete();
    },
    typing: async () => {
      if (!threadClosed(thread)) await thread.sendTyping();
    },
    canAttachFiles: () => thread.guild.members.me ? thread.permissionsFor(thread.guild.members.me).has(PermissionFlagsBits.AttachFiles) : true,
    preflight: () => threadProblem(thread),
    missingPermissions: () => missingInThread(thread),
  };
}

export function interactionTarget(interaction: ChatInputCommandInteraction | ModalSubmitInteraction): TurnTarget {
  return {
    conversationKey: undefined,
    client: interaction.client,
    send: (m) => interaction.followUp({ content: m.content, components: m.components ?? [], files: m.files, allowedMentions: NO_MENTIONS }),
    edit: async (message, m) => {
      await interaction.webhook.editMessage(message, { content: m.content, components: m.components ?? [], ...(m.files ? { files: m.files } : {}), allowedMentions: NO_MENTIONS });
    },
    remove: async (message) => {
      await interaction.webhook.deleteMessage(message);
    },
    // An interaction's messages need no channel permission, and no typing indicator goes through it.
    typing: async () => undefined,
    canAttachFiles: () => interaction.appPermissions?.has(PermissionFlagsBits.AttachFiles) ?? true,
  };
}
