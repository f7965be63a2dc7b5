/**
 * Acknowledgement latency, measured from outside the commands: the time from an interaction reaching
 * this process to the response to Discord's first callback for it (a deferral, reply, update or
 * autocomplete answer all go to `POST /interactions/:id/:token/callback`). Discord's own creation
 * time is not used: its clock and ours differ, and what the bot controls starts at receipt.
 */
import { Events, RESTEvents, type Client, type Interaction } from 'discord.js';

/** Receives one measurement: what kind of interaction, and seconds to its first response. */
export type AcknowledgementObserver = (kind: string, seconds: number) => void;

// Discord allows 3 s to acknowledge; past this an entry can no longer be answered and is dropped.
const FORGET_AFTER_MS = 5_000;
const CALLBACK = /^\/interactions\/(\d+)\/[^/]+\/callback/;

/** Start measuring on `client`; call before logging in. */
export function measureAcknowledgements(client: Client, observe: AcknowledgementObserver, now: () => number = performance.now.bind(performance)): void {
  const pending = new Map<string, { at: number; kind: string }>();
  client.on(Events.InteractionCreate, (interaction) => {
    const id = interaction.id;
    pending.set(id, { at: now(), kind: kindOf(interaction) });
    setTimeout(() => pending.delete(id), FORGET_AFTER_MS).unref();
  });
  client.rest.on(RESTEvents.Response, (request, response) => {
    const id = CALLBACK.exec(request.path)?.[1];
    const entry = id === undefined ? undefined : pending.get(id);
    if (!entry || response.status >= 400) return;
    pending.delete(id!);
    observe(entry.kind, (now() - entry.at) / 1000);
  });
}

function kindOf(interaction: Interaction): string {
  if (interaction.isChatInputCommand()) return 'command';
  if (interaction.isAutocomplete()) return 'autocomplete';
  if (interaction.isButton()) return 'button';
  if (interaction.isMessageComponent()) return 'component';
  if (interaction.isModalSubmit()) return 'modal';
  return 'other';
}
