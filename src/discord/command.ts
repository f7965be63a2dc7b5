/**
 * The shapes of what `commands/` holds: slash commands (`data` + `execute`) and message context-menu
 * commands ("Apps → Ask about this message"), each with optional buttons and modals they put up,
 * routed back to them by custom id prefix.
 */
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ContextMenuCommandBuilder,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  SlashCommandBuilder,
  SlashCommandOptionsOnlyBuilder,
  SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { BotServices } from './services.js';

/** Components a command put on messages or modals, routed back by custom id prefix (e.g. `reset:`). */
export interface Routed<I> {
  prefix: string;
  handle(interaction: I, services: BotServices): Promise<void>;
}

interface Extras {
  buttons?: Routed<ButtonInteraction>;
  modals?: Routed<ModalSubmitInteraction>;
}

export interface Command extends Extras {
  data: SlashCommandBuilder | SlashCommandOptionsOnlyBuilder | SlashCommandSubcommandsOnlyBuilder;
  execute(interaction: ChatInputCommandInteraction, services: BotServices): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, services: BotServices): Promise<void>;
}

/** A command in a message's context menu (Apps → …). */
export interface MessageCommand extends Extras {
  data: ContextMenuCommandBuilder;
  execute(interaction: MessageContextMenuCommandInteraction, services: BotServices): Promise<void>;
}

export type AnyCommand = Command | MessageCommand;

export function isMessageCommand(command: AnyCommand): command is MessageCommand {
  return command.data.toJSON().type === 3;
}

/** How a person finds a command: `/ask` for a slash command, `Apps → Add to knowledge base` for a menu one. */
export function commandLabel(command: AnyCommand): string {
  const type = command.data.toJSON().type;
  if (type === 3) return `Apps → ${command.data.name} (on a message)`;
  if (type === 2) return `Apps → ${command.data.name} (on a member)`;
  return `/${command.data.name}`;
}
