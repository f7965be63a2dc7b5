/**
 * The engine: one object per bot (or terminal run) that owns what lasts between runs — the model
 * client, the tool index, the protocol drivers and what it learned about model servers — and starts
 * runs. A run is iterated with `for await` for its events and exposes its result as a promise:
 *
 *   const engine = createEngine({ model, tools, defaults: { maxSteps: 8 } });
 *   const run = engine.run({ messages: [{ role: 'user', content: 'What is 2 + 2?' }] });
 *   for await (const event of run) render(event);
 *   const { answer } = await run.result;
 */
import { Citations } from './citations.js';
import { AgentRun } from './agent-run.js';
import { NativeProtocol } from './native-protocol.js';
import { ProtocolMemory } from './protocol-memory.js';
import { RunLoop } from './run-loop.js';
import type { BeforeTool, CallBudget, NeedsApproval, RunPlan } from './run-plan.js';
import type { CallDecision, RunState } from './run-state.js';
import { TextProtocol } from './text-protocol.js';
import type { ToolContext, ToolDefinition } from './tool.js';
import { ToolIndex } from './tool-index.js';
import { ToolRunner } from './tool-runner.js';
import { DEFAULT_RUN, type RunDefaults } from './run-defaults.js';
import type { ChatMessage, ChatModel, FitContext, ProtocolSetting } from './types.js';

export interface EngineOptions {
  /** The model runs use unless their input names another. */
  model: ChatModel;
  /** Every tool the engine knows; policy narrows them per run with `allowedTools`. */
  tools: readonly ToolDefinition[];
  /**
   * Tools that come and go while the engine lives (those of MCP servers), offered after `tools`. Asked
   * when each run starts; return the same array while nothing changed, so the index is not rebuilt.
   */
  moreTools?: () => readonly ToolDefinition[];
  defaults?: Partial<RunDefaults>;
  /** Tools' HTTP (tests pass one that talks to a local server). */
  fetch?: typeof fetch;
  now?: () => Date;
  /** Monotonic milliseconds, for durations. */
  clock?: () => number;
  /** How long a learned fallback to the text protocol holds before the server is tried again. */
  protocolMemoryMs?: number;
  /** Trims every request to the model's context window (the composition root knows window and tokenizer). */
  fitContext?: FitContext;
  /** Whether a model is shown the images tools return (vision models; MODEL_VISION). Default: none is. */
  toolImages?: (model: string) => boolean;
}

/** One run: the conversation so far (ending with the new user message) and what differs from the defaults. */
export interface RunInput {
  /** No system message: the engine adds its own, with `instructions` below it. */
  messages: readonly ChatMessage[];
  /** Names allowed right now; asked before every step and again before tools run. Default: all. */
  allowedTools?: () => ReadonlySet<string> | Promise<ReadonlySet<string>>;
  /** Another model for this run (a channel's model setting). */
  model?: ChatModel;
  protocol?: ProtocolSetting;
  maxSteps?: number;
  /** Tokens this run may use (what is left of a member's or server's daily budget). */
  tokenBudget?: number;
  /** A shared budget checked before and charged after every model call (daily token caps). */
  callBudget?: CallBudget;
  /** Extra system-prompt text (where the bot is, who is talking). */
  instructions?: string;
  /** Cancels the run (the Stop button, Ctrl-C, shutdown). */
  signal?: AbortSignal;
  /** Manual mode: asked before each tool call runs. */
  beforeTool?: BeforeTool;
  /** Calls that wait for a person: the run stops ('interrupted') with its state, to be resumed with the decisions. */
  approval?: NeedsApproval;
  /** The knowledge collection tools search (a Discord server's id, or the terminal's collection). */
  collection?: string;
  /** Whether the member asking may view a channel (see ToolContext); absent: everything is visible. */
  canViewChannel?: ToolContext['canViewChannel'];
  /** The people the run answers and their own words this turn (see ToolContext); absent: nobody in particular. */
  askers?: ToolContext['askers'];
  /** Where tools show a person what they did for them (see ToolContext). */
  notify?: ToolContext['notify'];
}

export interface Engine {
  /** Every tool the engine knows now, in the order they are offered (with `moreTools`, it changes). */
  readonly tools: readonly ToolDefinition[];
  readonly defaults: Readonly<RunDefaults>;
  run(input: RunInput): AgentRun;
  /**
   * Go on with an interrupted run: its waiting step runs with `decisions` (by call id; a call that
   * needed one and has none is not run), then the loop goes on. `input` is read as for `run`, its
   * messages excepted (they are the state's), and the run gets a fresh time limit.
   */
  resume(state: RunState, decisions: Readonly<Record<string, CallDecision>>, input: Omit<RunInput, 'messages'>): AgentRun;
}

export function createEngine(options: EngineOptions): Engine {
  const defaults: RunDefaults = { ...DEFAULT_RUN, ...options.defaults };
  const indexOf = (tools: readonly ToolDefinition[]) => {
    const index = new ToolIndex(tools);
    return { index, native: new NativeProtocol(index, { offerFinalAnswerTool: defaults.offerFinalAnswerTool }) };
  };
  let built = indexOf(options.tools);
  let builtFrom: readonly ToolDefinition[] | undefined;
  /** The index over every tool now: rebuilt only when `moreTools` hands back a different array. */
  const current = () => {
    const more = options.moreTools?.();
    if (more && more !== builtFrom) {
      builtFrom = more;
      built = indexOf([...options.tools, ...more]);
    }
    return built;
  };
  const text = new TextProtocol();
  const memory = new ProtocolMemory(options.protocolMemoryMs);
  const clock = options.clock ?? (() => performance.now());
  const context = { fetch: options.fetch ?? globalThis.fetch, now: options.now ?? (() => new Date()) };

  return {
    get tools() {
      return current().index.tools;
    },
    defaults,
    run: (input) => start(input),
    resume: (state, decisions, input) => start({ ...input, messages: state.messages }, { state, decisions }),
  };

  function start(input: RunInput, resume?: { state: RunState; decisions: Readonly<Record<string, CallDecision>> }): AgentRun {
    // A run keeps the tools there were when it started; the policy still decides at every step.
    const { index, native } = current();
    const drivers = { native, text };
    const everyTool = () => index.allNames;
    const citations = new Citations();
    const runner = new ToolRunner(index, {
      timeoutMs: defaults.toolTimeoutMs,
      maxOutputChars: defaults.maxToolOutputChars,
      context: {
        ...context,
        collection: input.collection,
        canViewChannel: input.canViewChannel,
        cite: (source) => citations.cite(source),
        askers: input.askers,
        notify: input.notify,
      },
      clock,
    });
    const plan: RunPlan = {
      model: input.model ?? options.model,
      protocol: input.protocol ?? defaults.protocol,
      drivers,
      memory,
      tools: index.tools,
      knownNames: index.knownNames,
      runner,
      citations,
      messages: input.messages,
      allowedTools: input.allowedTools ?? everyTool,
      maxSteps: input.maxSteps ?? defaults.maxSteps,
      tokenBudget: input.tokenBudget,
      maxTokens: defaults.maxTokens,
      callBudget: input.callBudget,
      fitContext: options.fitContext,
      toolImages: options.toolImages,
      runTimeoutMs: defaults.runTimeoutMs,
      instructions: input.instructions,
      signal: input.signal,
      beforeTool: input.beforeTool,
      approval: input.approval,
      clock,
    };
    return new AgentRun((emit) => new RunLoop(plan, emit).run(resume));
  }
}

export type { AgentRun } from './agent-run.js';
export { DEFAULT_RUN, STEP_LIMIT, type RunDefaults } from './run-defaults.js';
export type { BeforeTool, CallBudget, NeedsApproval, ToolDecision } from './run-plan.js';
export type { CallDecision, Interruption, RunState, WaitingCall } from './run-state.js';
