/**
 * Stores over a raw backend for the contract suite (the raw backend lets a test plant bad entries the
 * way a crash or an old version would), plus a fake clock, a recording logger and message builders.
 */
import type { ChatMessage } from '../../../src/agent/types.js';
import { DEFAULT_TIMEOUTS } from '../../../src/storage/key-value.js';
import type { Backend } from '../../../src/storage/registry.js';
import { openBackend } from '../../../src/storage/open.js';
import { createConversationStore } from '../../../src/state/conversation-store.js';
import { createGuildSettingsStore } from '../../../src/state/guild-settings-store.js';
import type { Migrations } from '../../../src/state/records.js';
import type { ConversationStore, GuildSettingsStore, StorageEvent } from '../../../src/state/types.js';

export interface FakeClock {
  now: () => Date;
  advance(ms: number): void;
}

export function fakeClock(start = Date.UTC(2025, 0, 1)): FakeClock {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}

export function recordingLogger(): { events: StorageEvent[]; logger: (e: StorageEvent) => void } {
  const events: StorageEvent[] = [];
  return { events, logger: (e) => void events.push(e) };
}

export interface Stores {
  backend: Backend;
  conversations: ConversationStore;
  guildSettings: GuildSettingsStore;
}

export interface StoreOptions {
  namespace: string;
  clock?: FakeClock;
  logger?: (e: StorageEvent) => void;
  ttlMs?: number;
  migrations?: Migrations;
}

/** Open `url` and build both stores over it. */
export async function openStores(url: string, options: StoreOptions): Promise<Stores> {
  const backend = await openBackend(url, process.cwd(), {
    timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 },
    onBackgroundError: () => {},
  });
  return storesOver(backend, options);
}

/** Build both stores over an already open backend. */
export function storesOver(backend: Backend, options: StoreOptions): Stores {
  const now = options.clock?.now ?? (() => new Date());
  const logger = options.logger ?? (() => {});
  return {
    backend,
    conversations: createConversationStore({ backend, namespace: options.namespace, now, logger, ttlMs: options.ttlMs, migrations: options.migrations }),
    guildSettings: createGuildSettingsStore({ backend, namespace: options.namespace, now, logger }),
  };
}

export function user(content: string, author = { id: '1001', name: 'Ann' }) {
  return { role: 'user' as const, content, author };
}

export function answer(content: string): ChatMessage {
  return { role: 'assistant', content };
}

/** An assistant message calling `tool` and the tool's result: what one ReAct step appends. */
export function toolStep(id: string, tool: string, args: string, result: string): ChatMessage[] {
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: tool, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: result },
  ];
}
