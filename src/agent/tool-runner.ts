/**
 * Runs one tool call for the engine: finds the tool, decodes and validates its arguments, runs it
 * under its time limit, and always comes back with an observation. A bad call (unknown tool, tool not
 * allowed here, broken JSON, wrong arguments) or a failing tool is an observation the model can act on,
 * never an exception that ends the run.
 */
import { describeError } from '../errors.js';
import { cleanText } from './clean-text.js';
import type { Source, ToolApproval, ToolAttachment, ToolContext, ToolDefinition, ToolImage, ToolOutput } from './tool.js';
import { decodeArguments, type RawArguments } from './tool-arguments.js';
import type { ToolIndex } from './tool-index.js';

export interface Observation {
  output: string;
  isError: boolean;
  durationMs: number;
  truncated: boolean;
  sources: Source[];
  /** Files the tool handed back (only when it did). */
  attachments?: ToolAttachment[];
  /** Images the tool returned, for people to see beside the step (not part of `output`). */
  images?: ToolImage[];
}

export interface ToolRunnerOptions {
  timeoutMs: number;
  maxOutputChars: number;
  context: Omit<ToolContext, 'signal'>;
  clock: () => number;
}

/** What a tool sees; a class with a getter, because an object literal with a spread and a getter is slow to build. */
class CallContext implements ToolContext {
  readonly fetch: typeof fetch;
  readonly now: () => Date;
  readonly collection: string | undefined;
  readonly canViewChannel: ToolContext['canViewChannel'];
  readonly cite: ToolContext['cite'];
  readonly askers: ToolContext['askers'];
  readonly notify: ToolContext['notify'];
  constructor(
    base: Omit<ToolContext, 'signal'>,
    private readonly makeSignal: () => AbortSignal,
    readonly progress: ((text: string) => void) | undefined,
    readonly approvedBy: string | undefined,
  ) {
    this.fetch = base.fetch;
    this.now = base.now;
    this.collection = base.collection;
    this.canViewChannel = base.canViewChannel;
    this.cite = base.cite;
    this.askers = base.askers;
    this.notify = base.notify;
  }

  get signal(): AbortSignal {
    return this.makeSignal();
  }
}

/** A call ready to run, or the error observation for a call that cannot. */
export type PreparedCall = { tool: ToolDefinition; args: unknown } | { error: string };

/** One run's tool calls: the engine's tool index, with this run's limits and context. */
export class ToolRunner {
  constructor(
    private readonly index: ToolIndex,
    private readonly options: ToolRunnerOptions,
  ) {}

  /**
   * Resolve a call before it runs: the tool it names and its validated arguments, or, for a bad call,
   * the observation that explains what is valid. `allowed` is what this run may use right now.
   */
  prepare(name: string, raw: RawArguments, allowed: ReadonlySet<string>): PreparedCall {
    const tool = this.index.find(name);
    if (!tool) return { error: `Error: there is no tool named "${name}". ${this.availableNote(allowed)}` };
    if (!allowed.has(tool.name)) {
      return { error: `Error: the tool "${tool.name}" is not available here. ${this.availableNote(allowed)}` };
    }
    const decoded = decodeArguments(tool, raw);
    return 'error' in decoded ? decoded : { tool, args: decoded.args };
  }

  /**
   * Whether the tool says this call must wait for a person (ToolDefinition.needsApproval), and why. A
   * check that fails counts as "yes": a call nobody could clear is never run unasked.
   */
  async approvalNeed(call: PreparedCall): Promise<ToolApproval | undefined> {
    if ('error' in call || !call.tool.needsApproval) return undefined;
    try {
      return await call.tool.needsApproval(call.args, this.options.context);
    } catch (error) {
      return { reason: `its approval check failed (${describeError(error)})` };
    }
  }

  /** Whether any of these calls' tools may ask for a person's approval of their own. */
  mayAsk(calls: readonly PreparedCall[]): boolean {
    return calls.some((call) => 'tool' in call && call.tool.needsApproval !== undefined);
  }

  /**
   * Run a prepared call under its time limit, which `deadline` (epoch ms, the run's end) may shorten.
   * Rejects only when the run itself is aborted through `signal`. `onProgress` hears a long call's
   * progress; `approvedBy` is the person who approved this call, if one did.
   */
  async execute(call: PreparedCall, signal?: AbortSignal, deadline = Infinity, onProgress?: (text: string) => void, approvedBy?: string): Promise<Observation> {
    const started = this.options.clock();
    const done = (output: string, isError: boolean, sources: Source[] = []): Observation => {
      const { text, truncated } = this.cut(output);
      return { output: text, isError, truncated, sources, durationMs: this.options.clock() - started };
    };
    if ('error' in call) return done(call.error, true);
    try {
      const result = await this.withTimeout(call.tool, call.args, signal, deadline, onProgress, approvedBy);
      if (typeof result === 'string') return done(result, false);
      const observation = done(result.output, false, result.sources);
      return {
        ...observation,
        ...(result.attachments?.length ? { attachments: result.attachments } : {}),
        ...(result.images?.length ? { images: result.images } : {}),
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return done(`Error: ${describeError(error)}`, true);
    }
  }

  /** An observation that was not produced by a tool (manual mode: typed by a person). */
  injected(output: string): Observation {
    const { text, truncated } = this.cut(output);
    return { output: text, isError: false, truncated, sources: [], durationMs: 0 };
  }

  private withTimeout(
    tool: ToolDefinition,
    args: unknown,
    runSignal: AbortSignal | undefined,
    deadline: number,
    onProgress: ((text: string) => void) | undefined,
    approvedBy: string | undefined,
  ): Promise<string | ToolOutput> {
    const timeoutMs = tool.timeoutMs ?? this.options.timeoutMs;
    // The same delay each call when the deadline is far, so Node reuses one timer list.
    const remaining = deadline - Date.now();
    const limitMs = remaining < timeoutMs ? Math.max(0, remaining) : timeoutMs;
    // The tool's own controller is made only if the tool asks for its signal: most calls finish
    // without one, and each AbortController costs several microseconds on this hot path.
    let controller: AbortController | undefined;
    let stopReason: unknown;
    const context = new CallContext(this.options.context, () => {
      if (!controller) {
        controller = new AbortController();
        if (stopReason !== undefined) controller.abort(stopReason);
      }
      return controller.signal;
    }, onProgress, approvedBy);
    const message = limitMs < timeoutMs ? `${tool.name} was stopped: the run ran out of time.` : `${tool.name} took longer than ${timeoutMs} ms and was stopped.`;
    // One promise settled by whichever comes first: the tool, its time limit, or the run's abort. A tool
    // that ignores its signal therefore cannot hold the run.
    return new Promise<string | ToolOutput>((resolve, reject) => {
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
        runSignal?.removeEventListener('abort', onRunAbort);
      };
      const stop = (reason: unknown) => {
        if (settled) return;
        finish();
        stopReason = reason;
        controller?.abort(reason);
        reject(reason);
      };
      const timer = setTimeout(() => stop(new Error(message)), limitMs);
      const onRunAbort = () => stop(runSignal!.reason);
      runSignal?.addEventListener('abort', onRunAbort, { once: true });
      let running: Promise<string | ToolOutput>;
      try {
        running = tool.run(args, context);
      } catch (error) {
        finish();
        reject(error);
        return;
      }
      running.then(
        (value) => {
          if (settled) return;
          finish();
          resolve(value);
        },
        (error) => {
          if (settled) return;
          finish();
          reject(error);
        },
      );
    });
  }

  /** Tool output is untrusted text: invisible and spoofing characters go before the model sees it. */
  private cut(raw: string): { text: string; truncated: boolean } {
    const output = cleanText(raw);
    const max = this.options.maxOutputChars;
    if (output.length <= max) return { text: output, truncated: false };
    return {
      text: `${output.slice(0, max)}\n[output cut: showing the first ${max} of ${output.length} characters]`,
      truncated: true,
    };
  }

  private availableNote(allowed: ReadonlySet<string>): string {
    const names = [...allowed];
    return names.length ? `Tools you can use: ${names.join(', ')}.` : 'No tools are available here; answer directly.';
  }
}
