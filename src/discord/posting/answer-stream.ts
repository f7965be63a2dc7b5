/**
 * The answer as it is written: its message appears with the first answer text and is edited as more
 * arrives (at most once per interval), with a mark saying it is still being written. Before 2,000
 * characters it rolls over into a new message, so a long answer never trips Discord's limits and
 * nothing is lost. When the run ends, the messages are edited into the final answer (sources, footer).
 *
 * Answer text that may still turn out to be the model's thought before a tool call (`provisional`)
 * is held back for a moment: most such text settles first and never needs a message of its own.
 */
import { MessageMirror, type FileOut, type LogSink, type Shown } from './message-mirror.js';
import type { AnswerButtons } from './run-components.js';
import { answerLinks } from './format-steps.js';
import { closeOpenFence, MESSAGE_LIMIT, splitMessage } from './split-message.js';
import { MAX_FILES_PER_MESSAGE } from './tool-files.js';

export const WRITING_MARK = '\n-# ✍️ still writing…';

/**
 * More messages than this and, where files are allowed, the whole answer is also attached as a file (an
 * answer nothing of which was shown yet goes as the file alone, with its start shown).
 */
export const MAX_ANSWER_MESSAGES = 5;

export interface AnswerStreamOptions {
  /** Fewest milliseconds between edits (default 1,000). */
  minEditIntervalMs?: number;
  /** How long provisional text waits before it is shown (default 500). */
  holdProvisionalMs?: number;
}

export class AnswerStream<H> {
  private text = '';
  private final: Shown[] | undefined;
  private held: NodeJS.Timeout | undefined;
  private readonly mirror: MessageMirror<H>;
  private readonly holdMs: number;

  constructor(sink: LogSink<H>, options: AnswerStreamOptions = {}) {
    this.mirror = new MessageMirror(sink, (closed) => this.render(closed), options.minEditIntervalMs ?? 1_000);
    this.holdMs = options.holdProvisionalMs ?? 500;
  }

  /** The messages the answer is in so far (the first is what a link back points at). */
  get messages(): readonly H[] {
    return this.mirror.sent;
  }

  get writes(): number {
    return this.mirror.writes;
  }

  get failure(): unknown {
    return this.mirror.failure;
  }

  /** Whether any answer text has arrived (and not been discarded). */
  get started(): boolean {
    return this.text.length > 0;
  }

  /** The answer text so far, as shown while it is written (for an answer the run did not finish). */
  get partial(): string {
    return closeOpenFence(`### Answer\n${answerLinks(this.text)}`);
  }

  /** More answer text. */
  write(text: string, provisional = false): void {
    this.text += text;
    if (!provisional || this.mirror.sent.length > 0) return this.mirror.changed();
    this.held ??= setTimeout(() => {
      this.held = undefined;
      this.mirror.changed();
    }, this.holdMs);
  }

  /** The text was the model's thought after all: take back what was shown of it. */
  discard(): void {
    clearTimeout(this.held);
    this.held = undefined;
    this.text = '';
    this.mirror.changed();
  }

  /**
   * Edit the messages into the final answer, at once; resolves when Discord has it. What was shown
   * stays shown: a streamed answer keeps every message it was written into. A long answer is also
   * attached whole where files are allowed; never lost either way. `files` (charts the run drew) go on
   * the last message, as many as it can hold beside its own, and so do its `buttons` (Continue, 👍 and 👎).
   */
  finish(formatted: string, canAttachFiles: boolean, buttons: AnswerButtons = {}, files: readonly FileOut[] = []): Promise<void> {
    clearTimeout(this.held);
    // Nothing to say (the caller posts a failure notice instead): any draft is taken back.
    const final = formatted ? finalMessages(formatted, canAttachFiles, this.mirror.sent.length) : [];
    const { continueFor, votesFor } = buttons;
    if ((continueFor || votesFor) && final.length) final[final.length - 1] = { ...final.at(-1)!, ...(continueFor ? { continueFor } : {}), ...(votesFor ? { votesFor } : {}) };
    if (files.length && canAttachFiles && final.length) {
      const last = final.at(-1)!;
      const own = last.files ?? [];
      final[final.length - 1] = { ...last, files: [...own, ...files.slice(0, MAX_FILES_PER_MESSAGE - own.length)] };
    }
    this.final = final;
    return this.mirror.close();
  }

  private render(closed: boolean): Shown[] {
    if (this.final !== undefined) return this.final;
    if (closed || !this.text) return [];
    const chunks = splitMessage(`### Answer\n${answerLinks(this.text)}`, MESSAGE_LIMIT - WRITING_MARK.length - 4);
    return chunks.map((chunk, i) => ({
      // The mark goes under the newest part, outside any code block the text has open.
      content: i === chunks.length - 1 ? `${closeOpenFence(chunk)}${WRITING_MARK}` : chunk,
      button: false,
    }));
  }
}

/** The final answer's messages: at least as many as were already `shown`, so no visible text is deleted. */
function finalMessages(formatted: string, canAttachFiles: boolean, shown: number): Shown[] {
  const chunks = splitAtLeast(formatted, shown);
  const file = { name: 'answer.md', data: Buffer.from(formatted, 'utf8'), description: 'The full answer' };
  const long = chunks.length > MAX_ANSWER_MESSAGES && canAttachFiles;
  if (long && shown === 0) {
    // Nothing shown yet: the start and the file, rather than a wall of messages.
    const preview = splitMessage(formatted, 1500)[0]!;
    const note = `-# The answer is long (${formatted.length.toLocaleString('en-US')} characters): the full text is in the attached file.`;
    return [{ content: `${closeOpenFence(preview)}\n\n${note}`, button: false, files: [file] }];
  }
  const messages: Shown[] = chunks.map((content) => ({ content, button: false }));
  if (long) messages[messages.length - 1] = { ...messages.at(-1)!, files: [file] };
  return messages;
}

/** Split into messages, in at least `count` of them when the text allows (streamed parts were a little shorter). */
function splitAtLeast(text: string, count: number): string[] {
  let limit = MESSAGE_LIMIT;
  let chunks = splitMessage(text, limit);
  while (chunks.length < count && limit > 500) {
    limit = Math.floor(limit * 0.9);
    chunks = splitMessage(text, limit);
  }
  return chunks;
}
