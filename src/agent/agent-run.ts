/**
 * A run in progress: its events as an async iterable (`for await`), and its result as a promise.
 * The loop runs whether or not anyone reads the events: they are buffered until read, so a caller
 * that only needs the result can `await run.result`, and a renderer that reads events never slows
 * the run down. The result promise never rejects: every failure is a result with reason 'error'.
 */
import type { AgentEvent, AgentResult } from './types.js';

export class AgentRun implements AsyncIterable<AgentEvent> {
  readonly result: Promise<AgentResult>;
  private readonly buffer: AgentEvent[] = [];
  /** Where the buffer is read from: an index rather than `shift()`, which copies on a long buffer. */
  private head = 0;
  /** The reader waiting for the next event, when the buffer was empty (one at a time, as `for await` asks). */
  private waiting: ((next: IteratorResult<AgentEvent>) => void) | undefined;
  private ended = false;
  private read = false;
  /** The reader stopped early: later events are not kept. */
  private dropped = false;

  /** Starts `loop` at once, handing it the function that publishes an event. */
  constructor(loop: (emit: (event: AgentEvent) => void) => Promise<AgentResult>) {
    this.result = loop((event) => {
      const waiting = this.waiting;
      if (waiting) {
        this.waiting = undefined;
        waiting({ value: event, done: false });
      } else if (!this.dropped) this.buffer.push(event);
    }).finally(() => {
      this.ended = true;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.({ value: undefined, done: true });
    });
  }

  /**
   * The run's events, in order, ending after `run-end`. A run's events can be read once. Written by
   * hand rather than as an async generator: a generator costs several promise hops per event, and a
   * step publishes several events (`npm run bench -- engine-alone` shows the difference).
   */
  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.read) throw new Error('A run\'s events can be read only once.');
    this.read = true;
    return {
      next: () => {
        if (this.head < this.buffer.length) {
          const value = this.buffer[this.head++]!;
          if (this.head === this.buffer.length) {
            this.buffer.length = 0;
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.ended || this.dropped) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      // A reader that stops early (`break`) lets the run go on; later events are dropped.
      return: () => {
        this.dropped = true;
        this.buffer.length = 0;
        this.head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
