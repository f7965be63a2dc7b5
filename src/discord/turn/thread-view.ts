/**
 * What a thread shows of one run, and the one place that posts it: the step log (thoughts streaming into
 * it at the `full` level), the answer streaming into its own messages and finished from what the run
 * said (its `answer`, `error` and `run-end` events), the typing indicator, the Stop button, and the rule
 * that the first "you cannot post here" from Discord stops the run. Showing never ends a turn: an event
 * that cannot be rendered is logged and the rest goes on, and the answer, or a failure note, always
 * goes out where it can.
 */
import { AttachmentBuilder, type Message } from 'discord.js';
import { cleanText } from '../../agent/clean-text.js';
import type { Source, ToolAttachment } from '../../agent/tool.js';
import type { AgentEvent, CutOff, EndReason, Usage } from '../../agent/types.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { DisplayLevel } from '../../policy/index.js';
import { AnswerStream } from '../posting/answer-stream.js';
import { describeDiscordError, DiscordCode, discordCode } from '../posting/permissions.js';
import { formatAnswer, formatFailure } from '../posting/format-steps.js';
import type { Shown } from '../posting/message-mirror.js';
import { answerRow, stopRow, type AnswerButtons } from '../posting/run-components.js';
import { StepLog } from '../posting/step-log.js';
import type { MessageRef, Outgoing, TurnTarget } from '../posting/target.js';
import { filesNote, filesOut, MAX_FILES_PER_MESSAGE } from '../posting/tool-files.js';
import { closedThreadNote } from '../runs/thread-closure.js';
import { postingEnded, type ActiveRun, type RunRegistry, type StopCause } from '../runs/run-registry.js';
import { StepRenderer, typingIndicator } from './step-renderer.js';
import type { TurnOutcome } from './outcome.js';

/**
 * The fewest milliseconds between edits of a step-log message and of a streaming answer. Discord allows
 * about five messages per five seconds in a channel: a run edits its log and its answer at about one write
 * a second each, and the mirror coalesces what changes in between.
 */
export const PACING = { stepLogIntervalMs: 1_200, answerEditIntervalMs: 1_000 };

/** How long a run may show nothing before its thread gets a line with the Stop button. */
const STOP_OFFER_MS = 1_000;

/** Discord's answers that mean the bot may post nothing more there: missing access or permissions, a locked thread, a deleted channel. */
const CANNOT_POST: ReadonlySet<number> = new Set([DiscordCode.MissingAccess, DiscordCode.MissingPermissions, DiscordCode.ThreadLocked, DiscordCode.UnknownChannel]);

export interface ThreadViewOptions {
  target: TurnTarget;
  run: ActiveRun;
  runs: RunRegistry;
  display: DisplayLevel;
  /** The model answering: named in the answer's footer. */
  model: string;
  pacing: { stepLogIntervalMs: number; answerEditIntervalMs: number };
  logger: Logger;
}

/** How the run ended, as its events said. */
interface Ending {
  answer?: { text: string; sources: Source[]; cutOff?: CutOff; attachments?: ToolAttachment[] };
  error?: { code: string; message: string };
  end?: { reason: EndReason; steps: number; usage: Usage; durationMs: number };
}

export class ThreadView {
  private readonly steps: StepLog<Message>;
  private readonly answer: AnswerStream<Message>;
  private readonly typing: ReturnType<typeof typingIndicator>;
  private readonly renderer: StepRenderer<Message>;
  private readonly offerStop: NodeJS.Timeout;
  private readonly ending: Ending = {};
  /** The message carrying the Stop button now (it moves down as the log grows). */
  private stopMessage: MessageRef | undefined;
  /** The first event that could not be shown (the turn goes on without it). */
  private renderFailure: unknown;

  constructor(private readonly options: ThreadViewOptions) {
    const sink = this.sink();
    this.steps = new StepLog(sink, { minEditIntervalMs: options.pacing.stepLogIntervalMs, stopButton: true });
    this.answer = new AnswerStream(sink, { minEditIntervalMs: options.pacing.answerEditIntervalMs });
    this.typing = typingIndicator(() => options.target.typing());
    this.renderer = new StepRenderer(this.steps, this.answer, this.typing, options.display);
    // A slow first model call (a long prompt on a slow server) still gets a Stop button soon.
    const startedAt = performance.now();
    this.offerStop = setTimeout(() => this.renderer.offerStop(startedAt), STOP_OFFER_MS);
  }

  /** A line of the step log of the bot's own (whose messages a turn answers, files not read, history left out). */
  note(line: string): void {
    this.steps.append(line);
  }

  /** Show one event of the run. Never throws. */
  show(event: AgentEvent): void {
    if (event.type === 'answer') this.ending.answer = { text: event.text, sources: event.sources, cutOff: event.cutOff, attachments: event.attachments };
    if (event.type === 'run-end') {
      this.ending.end = { reason: event.reason, steps: event.steps, usage: event.usage, durationMs: event.durationMs };
      this.ending.error = event.error;
    }
    try {
      this.renderer.show(event);
    } catch (error) {
      if (this.renderFailure === undefined) this.options.logger.error({ err: error, runId: this.options.run.id, event: event.type }, 'could not show a step of the run; the run goes on');
      this.renderFailure ??= error;
    }
  }

  /** Write out what the log has, so what is posted next reads after it (a line a tool posts for a person). */
  async breakLog(): Promise<void> {
    await this.steps.flushAndBreak();
  }

  /**
   * Post a message below the log (an approval request): what the log has is written out first, and
   * what comes after it reads after it.
   */
  async post(message: Outgoing): Promise<Message> {
    await this.steps.flushAndBreak();
    return this.options.target.send(message);
  }

  /**
   * The run stopped to wait for a person: the log is written out with its Stop button kept (Stop still
   * ends the turn while it waits). Resolves with the message that carries it.
   */
  async pause(): Promise<MessageRef | undefined> {
    this.quiet();
    await this.steps.flushAndBreak();
    await this.answer.finish('', false);
    return this.stopMessage;
  }

  /**
   * The run is over: the answer finished (with its sources, charts and footer; its buttons: Continue when
   * the step limit cut it, 👍 and 👎 when it may be rated), or what went wrong. `note` goes under it (a
   * memory that could not be saved).
   */
  async finish(end: { stopCause?: StopCause; buttons?: AnswerButtons; note?: string }): Promise<TurnOutcome> {
    this.quiet();
    await this.steps.close();
    const { target, run, logger } = this.options;
    const { stopCause } = end;
    const note = (end.note ?? '') + (this.renderFailure !== undefined ? `\n-# ⚠️ Some steps could not be shown here (${describeError(this.renderFailure)}).` : '');
    // The steps could not be posted (a permission taken away mid-thread, say): the answer may still go out.
    if (this.steps.failure !== undefined && !postingEnded(stopCause)) logger.warn({ err: this.steps.failure, runId: run.id }, 'could not post the step log');
    if (stopCause === 'reset' || stopCause === 'deleted') {
      // `/reset`, or the question deleted: the person wants this exchange gone, so nothing of it is posted.
      await this.answer.finish('', false);
      return { kind: 'stopped', message: stopCause === 'reset' ? "Stopped: the thread's memory was cleared." : 'Stopped: the question was deleted.' };
    }
    if (postingEnded(stopCause)) {
      // The moderator's decision stands: nothing more goes into the thread, not even a notice.
      await this.answer.finish('', false);
      return { kind: 'stopped', message: closedThreadNote(stopCause) };
    }
    const { answer, end: ended } = this.ending;
    if (answer && ended) return this.postAnswer(answer, ended, end.buttons ?? {}, note);
    const failure = stopCause === 'shutdown' ? '⏹️ Interrupted: the bot is restarting. Your message is saved; send it again in a minute.' : formatFailure({ reason: ended?.reason ?? 'error', error: this.ending.error });
    if (this.answer.started) {
      // Part of an answer was already on screen: keep it, marked, with what went wrong under it.
      await this.answer.finish(`${this.answer.partial}\n\n${failure}${note}`, target.canAttachFiles());
    } else {
      await this.answer.finish('', false);
      await target.send({ content: failure + note }).catch((error) => logger.warn({ err: error }, 'could not post the failure notice'));
    }
    return { kind: 'failed', message: failure };
  }

  private async postAnswer(answer: NonNullable<Ending['answer']>, ended: NonNullable<Ending['end']>, buttons: AnswerButtons, note: string): Promise<TurnOutcome> {
    const { target, model } = this.options;
    const charts = answer.attachments?.length ? filesOut(answer.attachments) : [];
    const chartNote = charts.length ? filesNote(charts.length, target.canAttachFiles(), MAX_FILES_PER_MESSAGE - 1) : '';
    let text: string;
    try {
      text = formatAnswer(answer.text, { ...ended, cutOff: answer.cutOff, model }, answer.sources) + chartNote + note;
    } catch (error) {
      // The answer itself could not be laid out: it goes as plain text rather than not at all.
      this.options.logger.error({ err: error, runId: this.options.run.id }, 'could not lay out the answer; posting it plain');
      text = `### Answer\n${answer.text}${note}`;
    }
    await this.answer.finish(text, target.canAttachFiles(), buttons, charts);
    if (this.answer.failure === undefined && this.answer.messages[0]) return { kind: 'answered', answer: answer.text, answerMessage: this.answer.messages[0] };
    const failure = describeDiscordError(this.answer.failure, 'post the answer', target.missingPermissions?.());
    await target.send({ content: failure }).catch(() => undefined);
    return { kind: 'failed', message: failure, answer: answer.text };
  }

  /** Nothing more is typed or offered. */
  private quiet(): void {
    clearTimeout(this.offerStop);
    this.typing.close();
  }

  /** The step log's and the answer's messages, as the turn's target takes them. */
  private sink() {
    const { target, run, runs, logger } = this.options;
    // The model's text and tools' output may carry invisible and spoofing characters: none reach Discord.
    // A chart in the step log where the bot may not attach files: said in words, so the log goes on.
    const outgoing = (m: Shown): Outgoing => {
      const files = m.files && target.canAttachFiles() ? m.files : undefined;
      return {
        content: cleanText(m.files && !files ? `${m.content} (not shown: I lack the Attach Files permission here)` : m.content),
        components: m.button ? [stopRow(run.id)] : m.continueFor || m.votesFor ? [answerRow(m)] : [],
        ...(files ? { files: files.map((f) => new AttachmentBuilder(f.data, { name: f.name, description: f.description })) } : {}),
      };
    };
    // A thread closed under the run gets nothing more (an edit would even reopen an archived one).
    const open = () => {
      if (postingEnded(run.stopCause)) throw new Error(`not posted: ${run.stopCause}`);
    };
    // The first "you cannot post here" stops the run: no further model call for an answer nobody would see.
    const refused = (error: unknown): never => {
      const code = discordCode(error);
      if (code !== undefined && CANNOT_POST.has(code) && !run.stopCause) {
        logger.warn({ runId: run.id, code }, 'Discord refused a post in the thread: stopping the run (no further model calls)');
        runs.stop(run.id, 'cannot-post');
      }
      throw error;
    };
    return {
      send: async (m: Shown) => {
        open();
        const sent = await target.send(outgoing(m)).catch(refused);
        if (m.button) {
          this.stopMessage = { channelId: sent.channelId, messageId: sent.id };
          run.onMessage(sent.channelId, sent.id);
        }
        return sent;
      },
      edit: async (message: Message, m: Shown) => {
        open();
        await target.edit(message, outgoing(m)).catch(refused);
        if (m.button) this.stopMessage = { channelId: message.channelId, messageId: message.id };
      },
      remove: async (message: Message) => {
        open();
        await target.remove(message);
      },
    };
  }
}
