/**
 * The one entry point: open the backend KEYV_URL names and build the stores over it. Opening checks the
 * backend for real (connects, creates the table, pings), so a wrong URL or a dead server stops start-up
 * with a clear StorageError instead of failing on the first message.
 */
import type { StorageConfig } from '../config.js';
import { DEFAULT_TIMEOUTS, type BackendTimeouts } from '../storage/key-value.js';
import type { BackendKind } from '../storage/registry.js';
import { guarded } from '../storage/storage-failure.js';
import { openBackend, openOccurrenceClaims } from '../storage/open.js';
import type { OccurrenceClaims } from '../storage/occurrence-claims.js';
import { createConversationStore } from './conversation-store.js';
import { createGuildSettingsStore } from './guild-settings-store.js';
import { createRunJournalStore, type RunJournalStore } from './run-journal-store.js';
import { createWaitingTurnStore, type WaitingTurnStore } from './waiting-turn-store.js';
import { createConsoleSessionStore, type ConsoleSessionStore } from './console-session-store.js';
import { createMemberMemoryStore, type MemberMemoryStore, type MemoryLimits } from './member-memory/index.js';
import { createFeedbackStore, type FeedbackStore } from './feedback/index.js';
import type { Migrations } from './records.js';
import type { ConversationStore, GuildSettingsStore, StorageEvent, StorageLogger } from './types.js';
import { StorageError } from '../errors.js';
import { createUsageLimiter, type UsageLimiter, type UsageLimiterOptions } from './usage/usage-limiter.js';
import { createScheduleStore, type ScheduleStore } from './schedules/schedule-store.js';
import { createSkillStore, type SkillStore } from './skills/skill-store.js';

/** Everything `createStorage` takes besides the configuration; all optional. */
export interface StorageDeps {
  now?: () => Date;
  /** Where reports of bad records, expiries and dropped connections go. Default: console.warn. */
  logger?: StorageLogger;
  /** Prefix of every key; tests use a unique one per run. Default "threadwise". */
  namespace?: string;
  /** A relative SQLite path is taken from here. Default: the working directory (the project root under npm). */
  baseDir?: string;
  timeouts?: Partial<BackendTimeouts>;
  /** Record migrations (tests inject some; the built-in table is empty). */
  migrations?: Migrations;
  /** Member memory's caps (default 50 entries of about 300 characters) and entry ids (tests). */
  memberMemory?: { limits?: Partial<MemoryLimits>; newId?: () => string };
}

/** Everything the bot keeps between messages. */
export interface Storage {
  readonly kind: BackendKind;
  /** Where the data lives, safe to print. */
  readonly where: string;
  readonly conversations: ConversationStore;
  readonly guildSettings: GuildSettingsStore;
  /** Turns waiting for a person's decision on a tool call (approvals that outlive a process). */
  readonly waitingTurns: WaitingTurnStore;
  /** What members asked the bot to remember, per member per server. */
  readonly memberMemory: MemberMemoryStore;
  /** Each guild's scheduled questions. */
  readonly schedules: ScheduleStore;
  /** Members' 👍 and 👎 on answers, with each answered turn's record (expiring with the conversation TTL). */
  readonly feedback: FeedbackStore;
  /** Each guild's skills (issue 45), and which skill each skill thread runs. */
  readonly skills: SkillStore;
  /** The web console's sessions and sign-ins in progress (shared, so every console process sees them). */
  readonly consoleSessions: ConsoleSessionStore;
  /**
   * Open the usage limiter over this storage (same backend, namespace and clock); it is closed with the
   * storage. Opened on demand because it creates tables and, on SQLite, a connection of its own.
   */
  openUsageLimiter(options: Pick<UsageLimiterOptions, 'prices' | 'leaseMs' | 'retentionDays' | 'windowSeconds' | 'heartbeatMs' | 'reserveTokens' | 'owner'>): Promise<UsageLimiter>;
  /**
   * Open the exactly-once claims of scheduled occurrences over this storage (same backend and
   * namespace); closed with the storage. On demand, like the limiter: it creates a table and, on
   * SQLite, a connection of its own.
   */
  openScheduleClaims(): Promise<OccurrenceClaims>;
  /** The run journal of one bot process or shard (`main`, `shard-0`), over this storage. */
  runJournal(name: string): RunJournalStore;
  /**
   * One cheap round trip to the backend (a read of a key nobody writes), for readiness probes.
   * Throws StorageError, bounded by the backend's timeouts, when the backend cannot answer.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const NAMESPACE_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** Open storage as configured (what it keeps; the prompt's memory budget is the turn's). Throws StorageError when the backend cannot be used. */
export async function createStorage(config: Omit<StorageConfig, 'memoryTokenBudget'>, deps: StorageDeps = {}): Promise<Storage> {
  const namespace = deps.namespace ?? 'threadwise';
  if (!NAMESPACE_PATTERN.test(namespace)) throw new StorageError(`Invalid storage namespace "${namespace}".`);
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? defaultLogger;
  const backend = await openBackend(config.keyvUrl, deps.baseDir ?? process.cwd(), {
    timeouts: { ...DEFAULT_TIMEOUTS, ...deps.timeouts },
    onBackgroundError: (message) => logger({ level: 'error', code: 'backend-error', message }),
  });
  const ttlMs = config.conversationTtlDays ? config.conversationTtlDays * 86_400_000 : undefined;
  let closed = false;
  const limiters: UsageLimiter[] = [];
  const claims: OccurrenceClaims[] = [];
  return {
    kind: backend.kind,
    where: backend.where,
    conversations: createConversationStore({ backend, namespace, ttlMs, now, logger, migrations: deps.migrations }),
    guildSettings: createGuildSettingsStore({ backend, namespace, now, logger }),
    waitingTurns: createWaitingTurnStore(backend, namespace),
    memberMemory: createMemberMemoryStore({ backend, namespace, now, ...deps.memberMemory }),
    schedules: createScheduleStore({ backend, namespace, now, logger }),
    feedback: createFeedbackStore({ backend, namespace, ttlMs, now, logger }),
    skills: createSkillStore({ backend, namespace, now, logger }),
    consoleSessions: createConsoleSessionStore(backend, namespace),
    async openUsageLimiter(options) {
      const limiter = await createUsageLimiter({ ...options, backend, namespace, now });
      limiters.push(limiter);
      return limiter;
    },
    async openScheduleClaims() {
      const opened = await openOccurrenceClaims(backend, namespace);
      claims.push(opened);
      return opened;
    },
    runJournal: (name) => createRunJournalStore(backend, namespace, name),
    async ping() {
      if (closed) throw new StorageError(`Storage on ${backend.kind} (${backend.where}) is closed.`);
      await guarded(backend.kind, backend.where, 'ping', () => backend.keyv.get(`${namespace}:ping`));
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const limiter of limiters.splice(0)) await limiter.close().catch(() => undefined);
      for (const opened of claims.splice(0)) await opened.close().catch(() => undefined);
      await backend.close();
    },
  };
}

function defaultLogger(event: StorageEvent): void {
  if (event.level !== 'info') console.warn(`[storage] ${event.message}`);
}
