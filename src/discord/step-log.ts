/**
 * The running log of a run's steps in a thread. Steps are appended to the current log message by
 * editing it, at most once per interval, so a fast run makes a handful of REST calls instead of a burst
 * that trips Discord's per-channel rate limit (about 5 messages per 5 s). A new message starts only when
 * the current one would pass the 2,000-character limit. The first step is sent at once, so the thread
 * shows life immediately.
 */
import { closeOpenFence, graphemeBoundary, MESSAGE_LIMIT } from './split-message.js';

export interface LogSink<H> {
  send(content: string, withStopButton: boolean): Promise<H>;
  edit(handle: H, content: string, withStopButton: boolean): Promise<void>;
}

export interface StepLogOptions {
  minEditIntervalMs?: number;
  /** Whether the newest log message carries the Stop button while the run is going. */
  stopButton?: boolean;
}

interface LogMessage<H> {
  blocks: string[];
  handle?: H;
  /** What Discord shows now: text and whether it has the button. */
  shown?: { text: string; button: boolean };
}

const ROOM = MESSAGE_LIMIT - 50;

export class StepLog<H> {
  private readonly messages: Array<LogMessage<H>> = [];
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private again = false;
  private lastWrite = -Infinity;
  private readonly interval: number;
  /** REST writes made, for tests and the bench. */
  writes = 0;
  /** The first write error; the log stops writing after it (the caller reports it). */
  failure: unknown;

  constructor(
    private readonly sink: LogSink<H>,
    private readonly options: StepLogOptions = {},
  ) {
    this.interval = options.minEditIntervalMs ?? 1200;
  }

  /** Add a block of text to the log; it shows up within the edit interval. */
  append(block: string): void {
    if (this.closed) return;
    const text = block.length > ROOM ? closeOpenFence(`${block.slice(0, graphemeBoundary(block, ROOM - 5))}…`) : block;
    const last = this.messages.at(-1);
    if (last && last.blocks.join('\n').length + 1 + text.length <= ROOM) last.blocks.push(text);
    else this.messages.push({ blocks: [text] });
    this.schedule();
  }

  /** Write out everything pending and drop the Stop button. Safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.flushing) {
      this.again = true;
      return;
    }
    const wait = this.lastWrite + this.interval - performance.now();
    if (wait <= 0) void this.flush();
    else this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
  }

  /** Bring every log message up to date, one REST call at a time. */
  private flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = (async () => {
      do {
        this.again = false;
        for (const [i, message] of this.messages.entries()) {
          if (this.failure !== undefined) return;
          const text = message.blocks.join('\n');
          const button = !this.closed && this.options.stopButton === true && i === this.messages.length - 1;
          if (message.shown && message.shown.text === text && message.shown.button === button) continue;
          try {
            this.writes++;
            if (message.handle === undefined) message.handle = await this.sink.send(text, button);
            else await this.sink.edit(message.handle, text, button);
            message.shown = { text, button };
          } catch (error) {
            this.failure = error;
          }
          this.lastWrite = performance.now();
        }
      } while (this.again && this.closed);
    })().finally(() => {
      this.flushing = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.schedule();
      }
    });
    return this.flushing;
  }
}
