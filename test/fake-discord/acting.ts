/**
 * Acting as users: slash commands, autocomplete, user and message (context-menu) commands, clicks,
 * modal submissions and messages, in a server channel or a DM with the bot. Commands go through what
 * the Discord client enforces first (registered, allowed here, permitted to this member, options as
 * declared); what the client would not send is a thrown test error, not an interaction.
 */
import { checkCommandAccess, findCommand } from './command-access.js';
import { typeOptions } from './command-options.js';
import type { FakeDefaults } from './fake-discord.js';
import { submitModal, type ModalSubmitInput } from './modal-submit.js';
import type { FakeChannel, FakeCommand, FakeInteraction, FakeMessage } from './records.js';
import { RecordedState } from './recorded-state.js';
import { memberJSON, messageJSON, userJSON } from './serialize.js';
import { userMessage, type UserMessageInput } from './member-messages.js';
import {
  type AutocompleteInput, type ComponentInput, dispatchInteraction, givenOptions, type InteractionBase, resolvedFor,
  type SlashCommandInput,
} from './user-actions.js';

type Json = Record<string, unknown>;

export interface MessageCommandInput extends InteractionBase {
  /** The message command's registered name (may contain spaces and capitals). */
  name: string;
  /** The message right-clicked; it must be in the channel. */
  messageId: string;
}

export interface UserCommandInput extends InteractionBase {
  name: string;
  /** The user right-clicked. */
  targetUserId: string;
}

export abstract class ActingUsers extends RecordedState {
  abstract readonly defaults: FakeDefaults;

  /** A user runs a chat-input slash command; returns the interaction record (id, token, callbacks…). */
  sendSlashCommand(input: SlashCommandInput): FakeInteraction {
    const { channel, userId } = this.#where(input);
    const command = this.#command(input.name, 1, channel, userId);
    const typed = typeOptions(this.core, command, channel, givenOptions(input));
    const resolved = resolvedFor(this.core, channel, typed.refs, typed.uploads);
    return dispatchInteraction(this.core, {
      type: 2, commandType: 1, commandName: input.name, customId: null, options: typed.options, messageId: null,
      data: { ...this.#commandData(command), options: typed.options, ...(resolved ? { resolved } : {}) },
    }, { channel, userId, locale: input.locale });
  }

  /** A user types in an autocomplete option (it must be declared with `autocomplete: true`). */
  sendAutocomplete(input: AutocompleteInput): FakeInteraction {
    const { channel, userId } = this.#where(input);
    const command = this.#command(input.name, 1, channel, userId);
    const typed = typeOptions(this.core, command, channel, givenOptions(input, input.focused), true);
    return dispatchInteraction(this.core, {
      type: 4, commandType: 1, commandName: input.name, customId: null, options: typed.options, messageId: null,
      data: { ...this.#commandData(command), options: typed.options },
    }, { channel, userId, locale: input.locale });
  }

  /**
   * A user runs a message command on a message (Apps > name): type 2 with command type 3, `target_id`
   * and the message in `resolved.messages`, content included even without the Message Content intent
   * (gateway.mdx, Message Content Intent).
   */
  sendMessageCommand(input: MessageCommandInput): FakeInteraction {
    const { channel, userId } = this.#where(input);
    const command = this.#command(input.name, 3, channel, userId);
    const target = this.core.message(channel.id, input.messageId);
    const view = { applicationId: this.core.settings.applicationId, interactions: this.core.interactions, cdn: this.core.cdn };
    return dispatchInteraction(this.core, {
      type: 2, commandType: 3, commandName: input.name, customId: null, options: [], messageId: null,
      data: { ...this.#commandData(command), target_id: target.id, resolved: { messages: { [target.id]: messageJSON(this.core.world, target, view) } } },
    }, { channel, userId, locale: input.locale });
  }

  /** A user runs a user command on someone (Apps > name): `target_id` and the user (and member) in `resolved`. */
  sendUserCommand(input: UserCommandInput): FakeInteraction {
    const { channel, userId } = this.#where(input);
    const command = this.#command(input.name, 2, channel, userId);
    const target = this.core.world.users.get(input.targetUserId);
    if (!target) throw new Error(`fake-discord: no user ${input.targetUserId}`);
    const member = channel.guildId ? this.core.world.member(channel.guildId, target.id) : undefined;
    const resolved: Json = {
      users: { [target.id]: userJSON(target) },
      ...(member ? { members: { [target.id]: { ...memberJSON(this.core.world, member, false), permissions: this.core.world.permissionsIn(channel.id, target.id).toString() } } } : {}),
    };
    return dispatchInteraction(this.core, {
      type: 2, commandType: 2, commandName: input.name, customId: null, options: [], messageId: null,
      data: { ...this.#commandData(command), target_id: target.id, resolved },
    }, { channel, userId, locale: input.locale });
  }

  /** A user clicks a button (or picks from a select menu with `values`) on a message. */
  clickButton(input: ComponentInput): FakeInteraction {
    const message = this.core.world.messages.get(input.messageId);
    if (!message || message.deleted) throw new Error(`fake-discord: no message ${input.messageId}`);
    const channel = this.core.channel(input.channelId ?? message.channelId);
    const componentType = input.componentType ?? (input.values ? 3 : 2);
    return dispatchInteraction(this.core, {
      type: 3, commandName: null, customId: input.customId, options: [], messageId: message.id,
      data: { custom_id: input.customId, component_type: componentType, ...(input.values ? { values: input.values } : {}) },
    }, { channel, userId: input.userId ?? this.defaults.userId, locale: input.locale });
  }

  /** The user who was shown a modal (callback type 9) fills it in and submits it: MODAL_SUBMIT (type 5). */
  submitModal(input: ModalSubmitInput): FakeInteraction {
    return submitModal(this.core, input);
  }

  /**
   * A member (or another bot user) writes a message, where the Discord client would let them (View
   * Channel and Send Messages, or Send Messages in Threads in a thread or forum post); `replyTo` makes
   * it a reply (type 19, pinging the replied-to author unless `pingReply: false`), `dm: true` writes in
   * their DM with the bot (no guild_id, shard 0, DIRECT_MESSAGES). The bot gets MESSAGE_CREATE, with
   * the content hidden without the Message Content intent unless the bot is mentioned or it is a DM.
   */
  sendMessage(input: UserMessageInput): FakeMessage {
    return userMessage(this.core, {
      ...input, channelId: input.channelId ?? this.defaults.channelId, userId: input.userId ?? this.defaults.userId,
    });
  }

  #where(input: InteractionBase): { channel: FakeChannel; userId: string } {
    const userId = input.userId ?? this.defaults.userId;
    if (!input.dm) return { channel: this.core.channel(input.channelId ?? this.defaults.channelId), userId };
    // application-commands.mdx: global commands reach a user's DMs only if the bot shares a server with them.
    if (this.core.world.mutualGuilds(userId).length === 0) throw new Error(`fake-discord: user ${userId} shares no server with the bot, so has no DM commands`);
    return { channel: this.core.world.dmChannel(userId), userId };
  }

  #command(name: string, type: number, channel: FakeChannel, userId: string): FakeCommand {
    const command = findCommand(this.core, name, type, channel);
    checkCommandAccess(this.core, command, channel, userId);
    return command;
  }

  #commandData(command: FakeCommand): Json {
    return { id: command.id, name: command.name, type: command.type, ...(command.guildId ? { guild_id: command.guildId } : {}) };
  }
}
