/**
 * The run journal: every run in flight is written down (where it posts, which messages carry its Stop
 * button, which reply announced it) and crossed off when it ends. A process killed mid-run (SIGKILL,
 * a crash, the machine lost) cannot tidy up after itself; the next process to start with the same
 * journal does it: it disables the dead runs' Stop buttons, edits their replies to say the run was
 * interrupted and can be asked again, then clears the journal.
 *
 * Writes are queued in order and never block or fail a run; a write that fails is logged. While
 * nothing runs, the journal is emptied, so it stays a few entries long.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { JournalEntry, RunJournalStore } from '../../state/index.js';
import type { ActiveRun, RunObserver } from './run-registry.js';

/** What recovery does in Discord; implemented over the REST API (`journal-discord.ts`). */
export interface RecoveryActions {
  /** Show the Stop button of `runId` disabled on this message (`keep`), or take it off (an older log message). */
  disableStop(channelId: string, messageId: string, runId: string, keep: boolean): Promise<void>;
  /** Add a line under a message the bot wrote (the /ask reply). */
  appendNote(channelId: string, messageId: string, note: string): Promise<void>;
  /** Post a message in a channel or thread. */
  post(channelId: string, content: string): Promise<void>;
}

/** A run that died with an earlier process, rebuilt from its journal entries. */
export interface DeadRun {
  runId: string;
  threadId: string;
  reply?: { channelId: string; messageId: string };
  /** Messages that carried its Stop button, oldest first. */
  messages: Array<{ channelId: string; messageId: string }>;
}

export const INTERRUPTED_NOTE = '⏹️ Interrupted: the bot restarted before this run finished. Ask again to get an answer.';

export class RunJournal implements RunObserver {
  /** The journal's name: one per process, or per shard when sharded. */
  static nameFor(shard: { id: number } | undefined): string {
    return shard ? `shard-${shard.id}` : 'main';
  }

  /** This process lifetime: its own entries are never taken for a dead process's. */
  readonly boot = randomUUID().slice(0, 12);
  private chain: Promise<void>;
  private releaseWrites!: () => void;

  constructor(
    private readonly store: RunJournalStore,
    private readonly logger: Logger,
  ) {
    // Writes wait until recovery has read what the last process left (or was skipped).
    this.chain = new Promise<void>((resolve) => (this.releaseWrites = resolve));
  }

  started(run: ActiveRun): void {
    this.write({ v: 1, kind: 'start', boot: this.boot, runId: run.id, threadId: run.threadId, ...(run.guildId ? { guildId: run.guildId } : {}), ...(run.reply ? { reply: run.reply } : {}), at: Date.now() });
  }

  message(run: ActiveRun, channelId: string, messageId: string): void {
    this.write({ v: 1, kind: 'message', boot: this.boot, runId: run.id, channelId, messageId });
  }

  ended(run: ActiveRun, remaining: number): void {
    this.write({ v: 1, kind: 'end', boot: this.boot, runId: run.id });
    // Nothing in flight: nothing worth keeping. Queued behind the writes, so none is lost to it.
    if (remaining === 0) this.enqueue('clear the run journal', () => this.store.clear());
  }

  /** Resolves once every write queued so far is done (before storage closes). */
  flush(): Promise<void> {
    return this.chain;
  }

  /** Let writes go without recovering (a process that has no Discord client to tidy up with). */
  skipRecovery(): void {
    this.releaseWrites();
  }

  /**
   * Tidy up after the runs an earlier process left unfinished, then clear their entries. Resolves
   * with how many there were. Never throws: a run that cannot be tidied up (its thread deleted) is logged.
   */
  async recover(actions: RecoveryActions): Promise<number> {
    try {
      const read = await this.store.read();
      const old = read.entries.filter(({ entry }) => entry.boot !== this.boot);
      const dead = deadRuns(old.map(({ entry }) => entry));
      for (const run of dead) await this.tidy(run, actions);
      const last = old.at(-1);
      if (last) await this.store.clear(last.at);
      if (dead.length > 0 || read.unreadable > 0) {
        this.logger.warn({ runIds: dead.map((r) => r.runId), unreadable: read.unreadable }, `found ${dead.length} run(s) interrupted by the last stop (a crash or kill); their Stop buttons are disabled and their replies say so`);
      }
      return dead.length;
    } catch (error) {
      this.logger.error({ err: error }, 'could not read the run journal; runs interrupted by the last crash keep their Stop buttons');
      return 0;
    } finally {
      this.releaseWrites();
    }
  }

  private async tidy(run: DeadRun, actions: RecoveryActions): Promise<void> {
    const attempt = async (what: string, op: () => Promise<void>) => {
      try {
        await op();
        return true;
      } catch (error) {
        this.logger.warn({ err: error, runId: run.runId, threadId: run.threadId }, `could not ${what} of an interrupted run`);
        return false;
      }
    };
    for (const [i, m] of run.messages.entries()) {
      await attempt('disable the Stop button', () => actions.disableStop(m.channelId, m.messageId, run.runId, i === run.messages.length - 1));
    }
    // The reply says it where the question was asked; a follow-up has none, so the thread is told.
    const told = run.reply && (await attempt('edit the reply', () => actions.appendNote(run.reply!.channelId, run.reply!.messageId, `-# ${INTERRUPTED_NOTE}`)));
    if (!told) {
      const where = run.messages.at(-1)?.channelId ?? (run.threadId !== 'none' ? run.threadId : undefined);
      if (where) await attempt('post the interruption notice', () => actions.post(where, INTERRUPTED_NOTE));
    }
  }

  private write(entry: JournalEntry): void {
    this.enqueue(`write a run journal entry (${entry.kind})`, () => this.store.append(entry));
  }

  private enqueue(what: string, op: () => Promise<void>): void {
    this.chain = this.chain.then(op).catch((error) => this.logger.warn({ err: error }, `could not ${what}`));
  }
}

/** The runs that started but never ended, in the order they started. */
export function deadRuns(entries: readonly JournalEntry[]): DeadRun[] {
  const runs = new Map<string, DeadRun>();
  for (const entry of entries) {
    const key = `${entry.boot}:${entry.runId}`;
    if (entry.kind === 'start') runs.set(key, { runId: entry.runId, threadId: entry.threadId, ...(entry.reply ? { reply: entry.reply } : {}), messages: [] });
    else if (entry.kind === 'message') runs.get(key)?.messages.push({ channelId: entry.channelId, messageId: entry.messageId });
    else runs.delete(key);
  }
  return [...runs.values()];
}
