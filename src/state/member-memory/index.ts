/** Member memory: what members asked the bot to remember, per member per server, in the shared storage. */
export { createMemberMemoryStore, type AddOutcome, type MemberMemoryOptions, type MemberMemoryStore } from './member-memory-store.js';
export { oneLineEntry, MEMORY_LIMITS, type EntryOrigin, type MemoryEntry, type MemoryLimits } from './entry-records.js';
