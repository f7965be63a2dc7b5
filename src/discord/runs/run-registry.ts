/**
 * The runs going on right now, by id: the Stop button finds its run here, and shutdown stops them all.
 */
import { randomUUID } from 'node:crypto';

/**
 * Why a run was stopped: Stop pressed, the bot shutting down, `/reset` or the question deleted by its
 * author (nothing of the run is kept), its thread closed by a moderator, or Discord refusing the bot's
 * posts there.
 */
export type StopCause = 'user' | 'shutdown' | 'reset' | 'deleted' | PostingEndedCause;

/** A thread closed under a run: nothing more may be posted there (and nothing is posted into an archived one). */
export type ThreadClosedCause = 'thread-locked' | 'thread-archived' | 'thread-deleted';

/** The run may post nothing more where it was: its thread closed, or Discord refused a post (a permission taken away). */
export type PostingEndedCause = ThreadClosedCause | 'cannot-post';

/** Whether a cause is a thread being closed under the run. */
export function isThreadClosed(cause: StopCause | undefined): cause is ThreadClosedCause {
  return cause === 'thread-locked' || cause === 'thread-archived' || cause === 'thread-deleted';
}

/** Whether a cause leaves the run nowhere to post: nothing more is sent there, not even a notice. */
export function postingEnded(cause: StopCause | undefined): cause is PostingEndedCause {
  return isThreadClosed(cause) || cause === 'cannot-post';
}

export interface ActiveRun {
  id: string;
  threadId: string;
  guildId?: string;
  /** The member whose message started the run; they may stop it. */
  starterId: string;
  /** Everyone whose message the run answers (a busy thread's batch); each may stop it. Default: the starter. */
  askers?: string[];
  controller: AbortController;
  /** Why it was stopped, once it was. */
  stopCause?: StopCause;
  /** Settles when the run has finished its last message. */
  done: Promise<void>;
  /** The message that announced the run (the /ask reply), if any. */
  reply?: { channelId: string; messageId: string };
  /** The run posted a message carrying its Stop button (the run journal keeps where). */
  onMessage(channelId: string, messageId: string): void;
}

/** Told as runs start, post their Stop button and end: the run journal. Never throws. */
export interface RunObserver {
  started(run: ActiveRun): void;
  message(run: ActiveRun, channelId: string, messageId: string): void;
  ended(run: ActiveRun, remaining: number): void;
}

export class RunRegistry {
  private readonly runs = new Map<string, ActiveRun>();
  private readonly newId: () => string;
  private readonly observer?: RunObserver;

  constructor(options: { newId?: () => string; observer?: RunObserver } = {}) {
    this.newId = options.newId ?? (() => randomUUID().slice(0, 8));
    this.observer = options.observer;
  }

  /** Register a run; call the returned `finish` when it has posted its last message. */
  start(info: { id?: string; threadId: string; guildId?: string; starterId: string; askers?: string[]; reply?: ActiveRun['reply'] }): { run: ActiveRun; finish: () => void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const run: ActiveRun = {
      ...info,
      id: info.id ?? this.newId(),
      controller: new AbortController(),
      done,
      onMessage: (channelId, messageId) => this.observer?.message(run, channelId, messageId),
    };
    this.runs.set(run.id, run);
    this.observer?.started(run);
    let finished = false;
    return {
      run,
      finish: () => {
        if (finished) return;
        finished = true;
        this.runs.delete(run.id);
        this.observer?.ended(run, this.runs.size);
        finish();
      },
    };
  }

  get(id: string): ActiveRun | undefined {
    return this.runs.get(id);
  }

  stop(id: string, cause: StopCause): boolean {
    const run = this.runs.get(id);
    if (!run) return false;
    run.stopCause ??= cause;
    run.controller.abort(new Error(`stopped: ${cause}`));
    return true;
  }

  /** The runs going on in a thread. */
  inThread(threadId: string): ActiveRun[] {
    return [...this.runs.values()].filter((r) => r.threadId === threadId);
  }

  /** Every run going on now. */
  all(): ActiveRun[] {
    return [...this.runs.values()];
  }

  get size(): number {
    return this.runs.size;
  }

  /** Stop every run and wait (bounded) until each has posted that it was interrupted. */
  async stopAll(cause: StopCause, waitMs: number): Promise<void> {
    const all = [...this.runs.values()];
    for (const run of all) this.stop(run.id, cause);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(all.map((r) => r.done)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
    clearTimeout(timer);
  }
}
