/** The shape of a slash command in `commands/`: its definition, what it does, and optional extras. */
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  SlashCommandBuilder,
  SlashCommandOptionsOnlyBuilder,
  SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { BotServices } from './services.js';

export interface Command {
  data: SlashCommandBuilder | SlashCommandOptionsOnlyBuilder | SlashCommandSubcommandsOnlyBuilder;
  execute(interaction: ChatInputCommandInteraction, services: BotServices): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, services: BotServices): Promise<void>;
  /** Buttons this command put on messages, routed by custom id prefix (e.g. `reset:`). */
  buttons?: { prefix: string; handle(interaction: ButtonInteraction, services: BotServices): Promise<void> };
}
