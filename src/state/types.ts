/**
 * The vocabulary of thread memory: what a stored message is, what a loaded conversation holds, and the
 * small interfaces the Discord layer and the engine program against.
 */
import { speakerTag } from '../agent/clean-text.js';
import { prefixContent } from '../agent/content.js';
import type { ChatMessage, Usage } from '../agent/types.js';
import type { GuildSettings } from './guild-settings-schema.js';

/** Who wrote a message in a Discord thread, so the model can tell team members apart. */
export interface Author {
  id: string;
  name: string;
}

/** Metadata kept beside each message; never sent to the model as is (see `toModelMessages`). */
export interface MessageMeta {
  author?: Author;
  /** Epoch milliseconds when the message was stored. */
  at: number;
  /** The Discord message a person's message came in: deleting it there takes it back here. */
  messageId?: string;
}

/** A chat message as stored: the OpenAI wire shape plus who and when. */
export type StoredMessage = ChatMessage & MessageMeta;

/** What `append` accepts: `at` may be left out and is then the time of the append. */
export type NewMessage = ChatMessage & Partial<MessageMeta>;

/** A thread's remembered conversation. Empty threads have no times. */
export interface Conversation {
  threadId: string;
  /** Oldest first, as appended. */
  messages: StoredMessage[];
  createdAt?: number;
  updatedAt?: number;
  /** Model usage summed over every append that reported it. */
  usage: Usage;
  /**
   * Each append in order: when, how many of `messages` it holds, and the usage it reported (an
   * exchange's cost, for `/export`). Absent from conversations not read from a store.
   */
  batches?: Array<{ at: number; messages: number; usage?: Usage }>;
  /** Record format version the messages are in after any migration. */
  version: number;
}

/** Per-thread memory. Every method throws StorageError when the backend fails; none returns a guess. */
export interface ConversationStore {
  load(threadId: string): Promise<Conversation>;
  /**
   * Append one batch (for example a run's assistant tool calls with their tool results) atomically:
   * a later load sees all of it or none of it, and no concurrent append can overwrite it.
   */
  append(threadId: string, messages: readonly NewMessage[], usage?: Usage): Promise<void>;
  /** Forget the thread's conversation. Its starter is kept: a reset does not hand the thread to someone else. */
  reset(threadId: string): Promise<void>;
  /** The member who opened the thread (its `/ask`), or undefined for a thread that never recorded one. */
  starter(threadId: string): Promise<string | undefined>;
  /** Record who opened the thread; the first record stands (a later call changes nothing). */
  setStarter(threadId: string, userId: string): Promise<void>;
}

/** Per-guild settings, one versioned record per guild. */
export interface GuildSettingsStore {
  get(guildId: string): Promise<GuildSettings>;
  /** Read, change and save under a per-guild lock; `change` gets a copy and returns the new settings. */
  update(guildId: string, change: (current: GuildSettings) => GuildSettings | Promise<GuildSettings>): Promise<GuildSettings>;
}

/** Something the storage layer wants an operator to know: bad records, migrations, expiries, reconnects. */
export interface StorageEvent {
  level: 'info' | 'warn' | 'error';
  code:
    | 'corrupt-record'
    | 'newer-record'
    | 'migrated-record'
    | 'conversation-expired'
    | 'backend-error';
  message: string;
  threadId?: string;
  guildId?: string;
  /** Where a bad record was copied to. */
  quarantineKey?: string;
}

/** Receives StorageEvents; injected so tests can record them and the bot can route them to its logger. */
export type StorageLogger = (event: StorageEvent) => void;

/**
 * Strip storage metadata for the model. Each person's message starts with their name in brackets,
 * `[Ann Lee] hi`: the one way speakers are labelled, because many OpenAI-compatible servers drop the
 * API's `name` field, and the model must tell people apart in a shared thread.
 */
export function toModelMessages(messages: readonly StoredMessage[]): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.author ? prefixContent(m.content, `[${speakerTag(m.author.name, m.author.id)}] `) : m.content };
      case 'assistant':
        return m.tool_calls?.length
          ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls }
          : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
    }
  });
}

