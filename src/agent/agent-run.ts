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
  private wake: (() => void) | undefined;
  private ended = false;
  private read = false;

  /** Starts `loop` at once, handing it the function that publishes an event. */
  constructor(loop: (emit: (event: AgentEvent) => void) => Promise<AgentResult>) {
    this.result = loop((event) => {
      this.buffer.push(event);
      this.notify();
    }).finally(() => {
      this.ended = true;
      this.notify();
    });
  }

  /** The run's events, in order, ending after `run-end`. A run's events can be read once. */
  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.read) throw new Error('A run\'s events can be read only once.');
    this.read = true;
    while (true) {
      const event = this.buffer.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
