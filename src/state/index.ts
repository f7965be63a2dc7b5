/**
 * Thread memory and guild settings. Open with `createStorage(config.storage)`; serialize a thread's work
 * with a `ThreadQueue`; fit a loaded conversation into the model's context with `trimHistory`.
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
export { ThreadQueue, ThreadBusyError, type ThreadQueueOptions, type RunOptions } from './thread-queue.js';
export { trimHistory, type TrimOptions, type TrimResult } from './trim-history.js';
export { REPLY_PRIMING, TokenCounter, encodingForModel, tokenCounters, type EncodingName } from './token-counter.js';
export { sequenceProblem } from './message-sequence.js';
export type { BackendKind, BackendTimeouts } from './backends/backend.js';
export { contextFit, type ContextFitOptions } from './context-fit.js';
export { createRunJournalStore, type JournalEntry, type JournalRead, type RunJournalStore } from './run-journal-store.js';
