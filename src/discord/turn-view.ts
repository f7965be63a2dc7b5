/**
 * What a thread shows of a run as its events arrive: steps in the step log (thoughts streaming into it
 * at the `full` level), the answer streaming into its own messages, and a typing indicator while the
 * model thinks before its first words. Pure bookkeeping over the three outputs; no Discord calls here.
 */
import type { AgentEvent } from '../agent/types.js';
import { formatMs } from '../duration.js';
import type { DisplayLevel } from '../policy/index.js';
import type { AnswerStream } from './answer-stream.js';
import { formatStep } from './format-steps.js';
import type { StepLog } from './step-log.js';
import { filesCaption, filesOut } from './tool-files.js';

/** Shows "typing…" while nothing else is visibly happening. */
export interface TypingIndicator {
  /** The model is thinking: show typing if nothing appears soon. */
  waiting(): void;
  /** Something is visible now. */
  stop(): void;
}

export class TurnView<H> {
  /** A step's thought text so far, while it streams. */
  private readonly thoughts = new Map<number, string>();
  /** The step whose text is streaming into the answer, if any. */
  private answerStep: number | undefined;
  /** When the run started, once the "waiting for the model" line went up (it carries Stop). */
  private waitingSince: number | undefined;
  private modelStarted = false;

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
      case 'action':
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
        // A chart a tool drew shows at its step (and with the answer, even when steps are hidden).
        if (event.type === 'observation' && event.attachments && this.display !== 'answer') {
          const files = filesOut(event.attachments);
          this.steps.attach(filesCaption(event.tool, files), files);
        }
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
