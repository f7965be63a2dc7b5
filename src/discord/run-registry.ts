/**
 * The runs going on right now, by id: the Stop button finds its run here, and shutdown stops them all.
 */
import { randomUUID } from 'node:crypto';

export type StopCause = 'user' | 'shutdown';

export interface ActiveRun {
  id: string;
  threadId: string;
  guildId?: string;
  /** The member whose message started the run; they may stop it. */
  starterId: string;
  controller: AbortController;
  /** Why it was stopped, once it was. */
  stopCause?: StopCause;
  /** Settles when the run has finished its last message. */
  done: Promise<void>;
}

export class RunRegistry {
  private readonly runs = new Map<string, ActiveRun>();
  private readonly newId: () => string;

  constructor(options: { newId?: () => string } = {}) {
    this.newId = options.newId ?? (() => randomUUID().slice(0, 8));
  }

  /** Register a run; call the returned `finish` when it has posted its last message. */
  start(info: { threadId: string; guildId?: string; starterId: string }): { run: ActiveRun; finish: () => void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const run: ActiveRun = { ...info, id: this.newId(), controller: new AbortController(), done };
    this.runs.set(run.id, run);
    return {
      run,
      finish: () => {
        this.runs.delete(run.id);
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
