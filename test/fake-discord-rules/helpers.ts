/**
 * Shared set-up for the fake's rule tests: a fake with the real discord.js client, interactions routed
 * to per-test handlers (failures kept), and a way to expect a DiscordAPIError.
 */
import { type Client, type ClientOptions, DiscordAPIError, Events, type GatewayIntentBits, type Interaction } from 'discord.js';
import { expect } from 'vitest';
import { FakeDiscord, type FakeDiscordOptions, startClient } from '../fake-discord/index.js';

export type Handler = (interaction: Interaction) => Promise<void>;

export interface Rig {
  fake: FakeDiscord;
  client: Client<true>;
  /** By command name, custom id or modal custom id. */
  handlers: Map<string, Handler>;
  failures: unknown[];
  close(): Promise<void>;
}

function keyOf(interaction: Interaction): string {
  if (interaction.isCommand() || interaction.isAutocomplete()) return interaction.commandName;
  if (interaction.isMessageComponent() || interaction.isModalSubmit()) return interaction.customId;
  return '';
}

export async function startRig(
  options: FakeDiscordOptions & { intents?: GatewayIntentBits[]; client?: Partial<ClientOptions>; commands?: unknown[] } = {},
): Promise<Rig> {
  const { intents, client: clientOptions, commands, ...fakeOptions } = options;
  const fake = await FakeDiscord.start({ log: () => undefined, ...fakeOptions });
  if (commands) fake.registerCommands(commands);
  const handlers = new Map<string, Handler>();
  const failures: unknown[] = [];
  const client = await startClient(fake, {
    ...(intents ? { intents } : {}),
    ...clientOptions,
    setup: (c) => c.on(Events.InteractionCreate, (interaction) => {
      handlers.get(keyOf(interaction))?.(interaction).catch((error: unknown) => failures.push(error));
    }),
  });
  return {
    fake, client, handlers, failures,
    async close() {
      await client.destroy();
      await fake.close();
    },
  };
}

/** A chat-input command as a bot would register it. */
export function slash(name: string, options: Array<Record<string, unknown>> = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, description: `The ${name} command`, options, ...extra };
}

export async function rejection(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(DiscordAPIError);
  return error as DiscordAPIError;
}

/** Calls the fake's REST API directly (no discord.js queueing or retries), as the bot. */
export async function api(fake: FakeDiscord, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${fake.apiUrl}/v10${path}`, {
    method,
    headers: { authorization: `Bot ${fake.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Resolves with the arguments of the next client event that matches (after the call). */
export function nextEvent<A extends unknown[]>(client: Client, event: string, matches: (...args: A) => boolean = () => true, timeoutMs = 5000): Promise<A> {
  return new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (...args: unknown[]) => {
      if (!matches(...(args as A))) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args as A);
    };
    client.on(event, listener);
  });
}

/** Every dispatch the client receives, raw (`t` and `d`), from now on: what Discord would put on the wire. */
export function recordDispatches(client: Client): Array<{ t: string; d: Record<string, unknown>; shard: number }> {
  const seen: Array<{ t: string; d: Record<string, unknown>; shard: number }> = [];
  client.on(Events.Raw, (packet: { t?: string; d?: Record<string, unknown> }, shard: number) => {
    if (packet.t && packet.d) seen.push({ t: packet.t, d: packet.d, shard });
  });
  return seen;
}
