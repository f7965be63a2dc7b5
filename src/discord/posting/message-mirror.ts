/**
 * Keeps a run of Discord messages showing what `render()` says, writing at most once per interval:
 * a fast burst of changes becomes a handful of edits instead of a stream of requests that trips
 * Discord's rate limits. The first change is written at once, so a thread shows life immediately.
 * The step log and the streamed answer are both mirrors; each says what its messages should read.
 */

/** A file to attach to a message. */
export interface FileOut {
  name: string;
  data: Buffer;
  description?: string;
}

/** What one message should show. */
export interface Shown {
  content: string;
  /** Whether it carries the run's Stop button. */
  button: boolean;
  /** A Continue button for this member (an answer that stopped at the step limit). */
  continueFor?: string;
  /** 👍 and 👎 on this turn (the last message of a final answer). */
  votesFor?: string;
  files?: FileOut[];
}

/** Where the messages go: a thread (or, without one, the interaction's webhook). */
export interface LogSink<H> {
  send(message: Shown): Promise<H>;
  edit(handle: H, message: Shown): Promise<void>;
  /** Remove a message the mirror no longer needs (a draft that turned out not to be an answer). */
  remove?(handle: H): Promise<void>;
}

export class MessageMirror<H> {
  private readonly handles: H[] = [];
  private readonly shown: Shown[] = [];
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private again = false;
  private lastWrite = -Infinity;
  /** REST writes made, for tests and the bench. */
  writes = 0;
  /** The first write error; the mirror stops writing after it (the caller reports it). */
  failure: unknown;

  constructor(
    private readonly sink: LogSink<H>,
    private readonly render: (closed: boolean) => Shown[],
    private readonly intervalMs: number,
  ) {}

  /** The messages sent so far (the first one is what an answer links to). */
  get sent(): readonly H[] {
    return this.handles;
  }

  /** Something changed: it shows up within the interval. */
  changed(): void {
    if (this.closed) return;
    if (this.timer || this.flushing) {
      this.again = true;
      return;
    }
    const wait = this.lastWrite + this.intervalMs - performance.now();
    if (wait <= 0) void this.flush();
    else this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
  }

  /** Write out the current state now, without waiting for the interval (the mirror stays open). */
  async flushNow(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Write out the final state at once (`render(true)`). Safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Bring every message up to date, one REST call at a time. */
  private flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = this.sync().finally(() => {
      this.flushing = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.changed();
      }
    });
    return this.flushing;
  }

  private async sync(): Promise<void> {
    do {
      this.again = false;
      const wanted = this.render(this.closed);
      for (const [i, want] of wanted.entries()) {
        if (this.failure !== undefined) return;
        const now = this.shown[i];
        if (now && now.content === want.content && now.button === want.button && now.continueFor === want.continueFor && now.votesFor === want.votesFor && now.files === want.files) continue;
        await this.write(() => (i < this.handles.length ? this.sink.edit(this.handles[i]!, want) : this.sink.send(want).then((h) => void this.handles.push(h))));
        this.shown[i] = want;
      }
      // Messages no longer wanted (a draft that was not the answer after all).
      while (this.handles.length > wanted.length && this.failure === undefined) {
        const handle = this.handles.pop()!;
        this.shown.pop();
        if (this.sink.remove) await this.write(() => this.sink.remove!(handle));
      }
    } while (this.again && this.closed);
  }

  private async write(call: () => Promise<void>): Promise<void> {
    try {
      this.writes++;
      await call();
    } catch (error) {
      this.failure = error;
    }
    this.lastWrite = performance.now();
  }
}
