/**
 * The interaction registry: every slash command, message command, button, select menu and modal the
 * bot answers, from one explicit list (`commands/index.ts` → `interactions`, passed in by the
 * composition root). A command is found by its name, a component by the prefix of its custom id.
 * One route is dynamic, and says so: a guild's own commands (its skills) have names no list can hold,
 * so a chat-input command registered in a guild whose name is not in the list goes to the list's one
 * guild-command route (`GuildCommandRoute`), which finds the skill of that guild by name.
 * The list is checked when the bot starts: two commands of a kind with one name, or two components of
 * a kind whose prefixes overlap (one starts the other, so a custom id could match both), stop the start
 * with every such problem named. The bot (`bot.ts`) only looks an interaction up here and calls it.
 */
import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import { isMessageCommand, type AnyCommand, type Command, type MessageCommand } from './command.js';
import type { ButtonEntry, ModalEntry, SelectEntry } from './interaction-entry.js';
import type { BotServices } from './services.js';

/** A component of the list, its handler given the whole of the services. */
export type ComponentInteraction = ButtonEntry<BotServices> | SelectEntry<BotServices> | ModalEntry<BotServices>;

/**
 * The route of a guild's own chat-input commands (a server's skills): a command registered in a guild
 * whose name is none of the list's. At most one in the list.
 */
export interface GuildCommandRoute {
  kind: 'guild-command';
  execute(interaction: ChatInputCommandInteraction, services: BotServices): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, services: BotServices): Promise<void>;
}

/**
 * One item of the bot's interaction list: a command (its builder is `data`, its handler `execute`, and
 * any buttons or modal it puts up come with it), a component that stands alone (Stop, Continue,
 * Approve), or the route of a guild's own commands.
 */
export type InteractionEntry = AnyCommand | ComponentInteraction | GuildCommandRoute;

export type ComponentKind = ComponentInteraction['kind'];

/** What a person is told when what they used is no longer in the list (it came from an older version). */
export const NOT_KNOWN: Record<'command' | ComponentKind, string> = {
  command: 'I do not know that command; it may be from an older version.',
  button: 'This button is from an older version of the bot and no longer does anything. Ask again to get a new one.',
  select: 'This menu is from an older version of the bot and no longer does anything. Ask again to get a new one.',
  modal: 'This form is from an older version of the bot, so nothing was done. Please open it again.',
};

export interface InteractionRegistry {
  slash(name: string): Command | undefined;
  messageCommand(name: string): MessageCommand | undefined;
  button(customId: string): ButtonEntry<BotServices> | undefined;
  select(customId: string): SelectEntry<BotServices> | undefined;
  modal(customId: string): ModalEntry<BotServices> | undefined;
  /** The route for a chat-input command registered in a guild under a name the list does not have. */
  guildCommand(command: { commandName: string; commandGuildId: string | null }): GuildCommandRoute | undefined;
}

/** Thrown at start-up when the interaction list is ambiguous; the message names every problem. */
export class InteractionListError extends Error {
  override name = 'InteractionListError';
}

/** Build the registry, or throw `InteractionListError` when a name or a prefix could mean two entries. */
export function interactionRegistry(entries: readonly InteractionEntry[]): InteractionRegistry {
  const commands = entries.filter((e): e is AnyCommand => 'data' in e);
  const guildRoutes = entries.filter((e): e is GuildCommandRoute => 'kind' in e && e.kind === 'guild-command');
  const slash = commands.filter((c): c is Command => !isMessageCommand(c));
  const menu = commands.filter(isMessageCommand);
  const components: ComponentInteraction[] = [
    ...entries.filter((e): e is ComponentInteraction => !('data' in e) && e.kind !== 'guild-command'),
    // A command's own buttons and modal are entries like any other, with the command's name to tell them apart.
    ...commands.flatMap((c): ComponentInteraction[] => [
      ...(c.buttons ? [{ kind: 'button' as const, ...c.buttons, handle: c.buttons.handle.bind(c.buttons) }] : []),
      ...(c.modals ? [{ kind: 'modal' as const, ...c.modals, handle: c.modals.handle.bind(c.modals) }] : []),
    ]),
  ];
  const problems = [
    ...sameNames('slash command', slash.map((c) => c.data.name)),
    ...sameNames('message command', menu.map((c) => c.data.name)),
    ...(['button', 'select', 'modal'] as const).flatMap((kind) => overlappingPrefixes(kind, components.filter((c) => c.kind === kind).map((c) => c.prefix))),
    ...(guildRoutes.length > 1 ? [`${guildRoutes.length} routes for guild commands: a guild's command could go to either`] : []),
  ];
  if (problems.length > 0) throw new InteractionListError(`The interaction list is ambiguous:\n- ${problems.join('\n- ')}`);

  const byName = <C extends AnyCommand>(list: C[]) => new Map(list.map((c) => [c.data.name, c]));
  const slashByName = byName(slash);
  const menuByName = byName(menu);
  const byPrefix = <K extends ComponentKind>(kind: K) => {
    const list = components.filter((c): c is Extract<ComponentInteraction, { kind: K }> => c.kind === kind);
    // At most one matches: the check above refused overlapping prefixes.
    return (customId: string) => list.find((c) => customId.startsWith(c.prefix));
  };
  return {
    slash: (name) => slashByName.get(name),
    messageCommand: (name) => menuByName.get(name),
    button: byPrefix('button'),
    select: byPrefix('select'),
    modal: byPrefix('modal'),
    guildCommand: ({ commandName, commandGuildId }) => (commandGuildId && !slashByName.has(commandName) ? guildRoutes[0] : undefined),
  };
}

function sameNames(what: string, names: string[]): string[] {
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  return repeated.map((name) => `${names.filter((n) => n === name).length} ${what}s are named "${name}"`);
}

function overlappingPrefixes(kind: ComponentKind, prefixes: string[]): string[] {
  const problems: string[] = [];
  for (const [i, a] of prefixes.entries()) {
    if (a === '') problems.push(`a ${kind} has an empty custom id prefix, which would match every ${kind}`);
    for (const b of prefixes.slice(i + 1)) {
      if (a === '' || b === '') continue;
      if (a === b) problems.push(`two ${kind}s use the custom id prefix "${a}"`);
      else if (b.startsWith(a) || a.startsWith(b)) {
        const [short, long] = a.length < b.length ? [a, b] : [b, a];
        problems.push(`the ${kind} prefix "${short}" starts the ${kind} prefix "${long}": a custom id starting "${long}" would match both`);
      }
    }
  }
  return problems;
}
