/**
 * The shape of a component the bot puts up (a button, a select menu, a modal): the custom id prefix it
 * is routed back by, the builder that makes it, and the handler for it, in one object. Generic in what
 * the handler needs (`S`), so a module that builds a component for a run (Stop, Continue, Approve) can
 * say exactly what its handler uses without importing the services bag, which would close an import
 * circle through the turn starter. The registry (`interactions.ts`) gives every handler the whole
 * `BotServices`, which has all of it.
 */
import type { AnySelectMenuInteraction, ButtonInteraction, ModalSubmitInteraction } from 'discord.js';

/** A component the bot routes back to its handler by the start of its custom id. */
export interface ComponentEntry<Kind extends string, I, S> {
  kind: Kind;
  /** The start of every custom id it builds (`stop:`): no other entry's prefix may start the same way. */
  prefix: string;
  /**
   * Makes the component (or its action row), putting `prefix` in front of its custom id. Absent when
   * the component is built where it is shown (a command's own confirmation buttons).
   */
  build?(...args: never[]): unknown;
  handle(interaction: I, services: S): Promise<void>;
}

export type ButtonEntry<S> = ComponentEntry<'button', ButtonInteraction, S>;
export type SelectEntry<S> = ComponentEntry<'select', AnySelectMenuInteraction, S>;
export type ModalEntry<S> = ComponentEntry<'modal', ModalSubmitInteraction, S>;

/** What follows an entry's prefix in a custom id (the run id, the call's key, …). */
export function customIdRest(entry: { prefix: string }, customId: string): string {
  return customId.startsWith(entry.prefix) ? customId.slice(entry.prefix.length) : '';
}
