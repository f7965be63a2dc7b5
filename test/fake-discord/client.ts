/**
 * Starts a real discord.js Client against a FakeDiscord and waits until it is fully ready (READY and
 * every GUILD_CREATE received), so a test can start dispatching at once.
 */
import { Client, type ClientOptions, Events, GatewayIntentBits } from 'discord.js';
import type { FakeDiscord } from './fake-discord.js';

export interface StartClientOptions extends Partial<ClientOptions> {
  /** Attach listeners before login (interactionCreate handlers etc.). */
  setup?: (client: Client) => void;
  timeoutMs?: number;
}

export async function startClient(fake: FakeDiscord, options: StartClientOptions = {}): Promise<Client<true>> {
  const { setup, timeoutMs = 10_000, ...clientOptions } = options;
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
    ...clientOptions,
    rest: { ...clientOptions.rest, api: fake.apiUrl },
  });
  setup?.(client);
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`discord.js client not ready after ${timeoutMs} ms\n${fake.dump()}`)), timeoutMs);
    client.once(Events.ClientReady, () => resolve());
  });
  try {
    await Promise.all([client.login(fake.token), ready]);
  } catch (error) {
    await client.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return client as Client<true>;
}
