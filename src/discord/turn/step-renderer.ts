/**
 * How a run's events show in the thread as they arrive: steps in the step log (thoughts streaming into
 * it at the `full` level), the answer streaming into its own messages, and a typing indicator while the
 * model thinks before its first words. Pure bookkeeping over the three outputs, for the thread view
 * (thread-view.ts), which owns them and posts; no Discord calls here.
 */
import type { AgentEvent } from '../../agent/types.js';
import { formatMs } from '../../duration.js';
import type { DisplayLevel } from '../../policy/index.js';
import type { AnswerStream } from '../posting/answer-stream.js';
import { formatStep } from '../posting/format-steps.js';
import type { FileOut } from '../posting/message-mirror.js';
import type { StepLog } from '../posting/step-log.js';
import { filesCaption, filesOut } from '../posting/tool-files.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** Shows "typing…" while nothing else is visibly happening. */
export interface TypingIndicator {
  /** The model is thinking: show typing if nothing appears soon. */
  waiting(): void;
  /** Something is visible now. */
  stop(): void;
}

export class StepRenderer<H> {
  /** A step's thought text so far, while it streams. */
  private readonly thoughts = new Map<number, string>();
  /** The step whose text is streaming into the answer, if any. */
  private answerStep: number | undefined;
  /** When the run started, once the "waiting for the model" line went up (it carries Stop). */
  private waitingSince: number | undefined;
  private modelStarted = false;
  /** Each call's line while it runs, by call id (progress is added to it). */
  private readonly actions = new Map<string, string>();

  constructor(
    private readonly steps: StepLog<H>,
    private readonly answer: AnswerStream<H>,
    private readonly typing: TypingIndicator,
    private readonly display: DisplayLevel,
  ) {}

  /**
   * The model is slow to start (a long prompt on a slow server) and the thread shows nothing of the run
   * yet: put up a line, with the Stop button, so the run can be stopped before its first token.
   */
  offerStop(runStartedAt: number): void {
    if (this.modelStarted || this.waitingSince !== undefined || this.steps.writes > 0) return;
    this.waitingSince = runStartedAt;
    this.steps.live(WAITING_KEY, '-# ⏳ Waiting for the model to start…');
  }

  /** The model's first output: the waiting line, if it went up, says how long the wait was (it stays: nothing shown is taken away). */
  private started(now: number): void {
    if (this.modelStarted) return;
    this.modelStarted = true;
    if (this.waitingSince !== undefined) this.steps.settle(WAITING_KEY, `-# ⏳ The model took ${formatMs(now - this.waitingSince)} to start.`);
  }

  show(event: AgentEvent, now = performance.now()): void {
    if (event.type !== 'step-start' && event.type !== 'run-start') this.started(now);
    switch (event.type) {
      case 'step-start':
        this.typing.waiting();
        if (event.step === 1 && this.display === 'answer') this.steps.append('-# 🤔 working on it…');
        return;
      case 'text-delta':
        this.typing.stop();
        if (event.kind === 'answer') {
          this.answerStep = event.step;
          this.answer.write(event.text, event.provisional === true);
        } else {
          const text = (this.thoughts.get(event.step) ?? '') + event.text;
          this.thoughts.set(event.step, text);
          const shown = formatStep({ type: 'thought', step: event.step, text }, this.display);
          if (shown) this.steps.live(thoughtKey(event.step), `${shown} ✍️`);
        }
        return;
      case 'thought':
        // Text that streamed as a possible answer was the thought before tool calls: take the draft back.
        this.takeBackAnswer(event.step);
        this.steps.settle(thoughtKey(event.step), formatStep(event, this.display));
        return;
      case 'action': {
        this.takeBackAnswer(event.step);
        this.typing.stop();
        // Live until its result, so a long call's progress can update the line.
        const text = formatStep(event, this.display);
        if (text) {
          this.actions.set(event.callId, text);
          this.steps.live(callKey(event.callId), text);
        }
        return;
      }
      case 'progress': {
        const text = this.actions.get(event.callId);
        if (text) this.steps.live(callKey(event.callId), `${text} ⏳ ${event.text.replace(/\s+/g, ' ').slice(0, TEXT_CAPS.progressNote)}`);
        return;
      }
      case 'observation': {
        const text = this.actions.get(event.callId);
        if (text) this.steps.settle(callKey(event.callId), text);
        this.actions.delete(event.callId);
        this.append(event);
        if (this.display === 'answer') return;
        // A chart a tool drew shows at its step (and with the answer, even when steps are hidden).
        if (event.attachments) {
          const charts = filesOut(event.attachments);
          this.steps.attach(filesCaption(event.tool, charts), charts);
        }
        const images = event.images ? imageFiles(event.tool, event.images) : [];
        if (images.length) this.steps.attach(`-# 🖼️ ${event.tool} returned ${images.length === 1 ? 'an image' : `${images.length} images`}`, images);
        return;
      }
      case 'format-reminder':
        this.takeBackAnswer(event.step);
        this.typing.stop();
        this.append(event);
        return;
      case 'answer':
      case 'run-end':
        this.typing.stop();
        return;
      default:
        this.append(event);
    }
  }

  private takeBackAnswer(step: number): void {
    if (this.answerStep !== step) return;
    this.answerStep = undefined;
    this.answer.discard();
  }

  private append(event: AgentEvent): void {
    const text = formatStep(event, this.display);
    if (text) this.steps.append(text);
  }
}

const WAITING_KEY = 'waiting-for-model';

function thoughtKey(step: number): string {
  return `thought:${step}`;
}

function callKey(callId: string): string {
  return `call:${callId}`;
}

const IMAGE_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };
/** Most images, and largest image, shown for one call (Discord's upload limit is per message). */
const IMAGES_SHOWN = 4;
const IMAGE_MAX_BYTES = 2_000_000;

/** A tool's images as files for the thread: only types Discord shows inline, at most a few, none too large. */
function imageFiles(tool: string, images: ReadonlyArray<{ mimeType: string; data: string }>): FileOut[] {
  const files: FileOut[] = [];
  for (const image of images) {
    const ext = IMAGE_TYPES[image.mimeType.toLowerCase()];
    if (!ext || files.length >= IMAGES_SHOWN) continue;
    const data = Buffer.from(image.data, 'base64');
    if (data.length === 0 || data.length > IMAGE_MAX_BYTES) continue;
    files.push({ name: `${tool.replace(/[^A-Za-z0-9_-]/g, '_')}-${files.length + 1}.${ext}`, data, description: `An image returned by ${tool}` });
  }
  return files;
}

/** A typing indicator over a `typing()` call: shown after `delayMs` of silence, renewed while it lasts. */
export function typingIndicator(typing: () => Promise<void>, delayMs = 1_000, renewMs = 8_000): TypingIndicator & { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const show = () => {
    void typing().catch(() => undefined);
    // Discord shows typing for about ten seconds; renew it while the model is still silent.
    timer = setTimeout(show, renewMs);
  };
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    waiting() {
      stop();
      timer = setTimeout(show, delayMs);
    },
    stop,
    close: stop,
  };
}
