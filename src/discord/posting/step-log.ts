/**
 * The running log of a run's steps in a thread: blocks of text (a thought, a tool call, a result)
 * packed into as few messages as fit, each under 2,000 characters, written through a MessageMirror
 * so a fast run makes a handful of edits. A live block (a thought as it streams) is replaced as it
 * grows and settled when the step is read.
 */
import { MessageMirror, type FileOut, type LogSink, type Shown } from './message-mirror.js';
import { graphemeBoundary } from '../../agent/text-caps.js';
import { closeOpenFence, MESSAGE_LIMIT } from './split-message.js';

export type { LogSink } from './message-mirror.js';

export interface StepLogOptions {
  minEditIntervalMs?: number;
  /** Whether the newest log message carries the Stop button while the run is going. */
  stopButton?: boolean;
}

const ROOM = MESSAGE_LIMIT - 50;

interface Block {
  text: string;
  /** Set while the block is live (still being written), so it can be found and replaced. */
  key?: string;
  /** Starts a new message: something else was posted below the log (an approval request). */
  breakBefore?: boolean;
  /** Files (a chart) posted with the block, which then is a message of its own. */
  files?: FileOut[];
}

export class StepLog<H> {
  private readonly blocks: Block[] = [];
  private readonly mirror: MessageMirror<H>;

  constructor(
    sink: LogSink<H>,
    private readonly options: StepLogOptions = {},
  ) {
    this.mirror = new MessageMirror(sink, (closed) => this.render(closed), options.minEditIntervalMs ?? 1200);
  }

  /** REST writes made, for tests and the bench. */
  get writes(): number {
    return this.mirror.writes;
  }

  /** The first write error; the log stops writing after it (the caller reports it). */
  get failure(): unknown {
    return this.mirror.failure;
  }

  /** Add a block of text to the log; it shows up within the edit interval. */
  append(block: string): void {
    this.blocks.push({ text: fit(block), breakBefore: this.breakNext });
    this.breakNext = false;
    this.mirror.changed();
  }

  private breakNext = false;

  /**
   * Post files (a chart a tool drew) as a message of their own at this point of the log, with `caption`.
   * That message is never edited afterwards (an edit would upload the files again), so it never
   * carries the Stop button.
   */
  attach(caption: string, files: FileOut[]): void {
    this.blocks.push({ text: fit(caption), files });
    this.mirror.changed();
  }

  /**
   * Write out what is pending now, and put what comes next in a new message: something is about to be
   * posted below the log, and the steps after it should read after it.
   */
  async flushAndBreak(): Promise<void> {
    this.breakNext = true;
    await this.mirror.flushNow();
  }

  /** Show `text` in the live block `key` (made at the end of the log on first use). */
  live(key: string, text: string): void {
    const block = this.blocks.find((b) => b.key === key);
    if (block) block.text = fit(text);
    else {
      this.blocks.push({ text: fit(text), key, breakBefore: this.breakNext });
      this.breakNext = false;
    }
    this.mirror.changed();
  }

  /** The live block `key` is done: its final text, or gone (undefined). */
  settle(key: string, text: string | undefined): void {
    const at = this.blocks.findIndex((b) => b.key === key);
    if (at === -1) {
      if (text !== undefined) this.append(text);
      return;
    }
    if (text === undefined) this.blocks.splice(at, 1);
    else this.blocks[at] = { text: fit(text) };
    this.mirror.changed();
  }

  /** Write out everything pending and drop the Stop button. Safe to call more than once. */
  close(): Promise<void> {
    return this.mirror.close();
  }

  /** Blocks packed greedily into messages; the newest carries the Stop button while the run goes on. */
  private render(closed: boolean): Shown[] {
    const messages: Array<{ texts: string[]; files?: FileOut[] }> = [];
    let length = 0;
    for (const { text, breakBefore, files } of this.blocks) {
      const last = messages.at(-1);
      if (last && !last.files && !files && !breakBefore && length + 1 + text.length <= ROOM) {
        last.texts.push(text);
        length += 1 + text.length;
      } else {
        messages.push({ texts: [text], ...(files ? { files } : {}) });
        length = text.length;
      }
    }
    // The Stop button goes on the newest message without files (the same files array each render, so
    // the mirror sees a file message unchanged and never edits it).
    let withButton = messages.length - 1;
    while (withButton >= 0 && messages[withButton]!.files) withButton -= 1;
    return messages.map(({ texts, files }, i) => ({
      content: texts.join('\n'),
      button: !closed && this.options.stopButton === true && i === withButton,
      ...(files ? { files } : {}),
    }));
  }
}

/** A block longer than a message is cut to one (never inside a grapheme, never leaving a fence open). */
function fit(block: string): string {
  return block.length > ROOM ? closeOpenFence(`${block.slice(0, graphemeBoundary(block, ROOM - 5))}…`) : block;
}
