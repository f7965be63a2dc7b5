/**
 * Thread memory and guild settings. Open with `createStorage(config.storage)`; serialize a thread's work
 * with a `ThreadQueue`; fit a loaded conversation into the model's context with `trimHistory` (context/).
 */
export { createStorage, type Storage, type StorageDeps } from './create-storage.js';
export type {
  Author,
  Conversation,
  ConversationStore,
  GuildSettingsStore,
  MessageMeta,
  NewMessage,
  StorageEvent,
  StorageLogger,
  StoredMessage,
} from './types.js';
export { toModelMessages } from './types.js';
export * from './usage/index.js';
export {
  AUDIT_LOG_LIMIT,
  PERSONA_MAX_CHARS,
  GUILD_SETTINGS_VERSION,
  GuildSettingsSchema,
  defaultGuildSettings,
  type AuditEntry,
  type GuildSettings,
  type LimitOverrides,
  type ToolRule,
} from './guild-settings-schema.js';
export { RECORD_VERSION, type Migrations } from './records.js';
export * from './member-memory/index.js';
export * from './feedback/index.js';
export { ThreadQueue, ThreadBusyError, type ThreadQueueOptions, type RunOptions } from './thread-queue.js';
export type { BackendTimeouts } from '../storage/key-value.js';
export type { BackendKind } from '../storage/registry.js';
export * from './context/index.js';
export * from './schedules/index.js';
export * from './skills/index.js';
export { createRunJournalStore, type JournalEntry, type JournalRead, type RunJournalStore } from './run-journal-store.js';
export { createWaitingTurnStore, type UnreadableWaitingTurn, type WaitingTurnEntry, type WaitingTurnRead, type WaitingTurnRecord, type WaitingTurnStore } from './waiting-turn-store.js';
export { TAKEN_BACK } from './conversation-store.js';
export { createConsoleSessionStore, type ConsoleSession, type ConsoleSessionStore, type PendingSignIn } from './console-session-store.js';
