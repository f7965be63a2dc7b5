/** What a run is given when it starts: the engine's parts, the input's choices, and the manual-mode hook. */
import type { Citations } from './citations.js';
import type { ProtocolDriver } from './protocol.js';
import type { ProtocolMemory } from './protocol-memory.js';
import type { ToolApproval, ToolDefinition } from './tool.js';
import type { ToolRunner } from './tool-runner.js';
import type { ChatMessage, ChatModel, FitContext, ModelReply, ProtocolSetting, ToolSchema } from './types.js';

/** What a person decides in manual mode (the terminal's `--step`, approval buttons) before a tool runs. */
export type ToolDecision = { kind: 'run'; approvedBy?: string } | { kind: 'observe'; text: string } | { kind: 'stop' };

/**
/**
 * Whether a call needs a person's approval before it runs. Asked for every call of a step before any of
 * them runs; when one does, the run ends 'interrupted' with its state, and is resumed with the decisions.
 */
export type NeedsApproval = (call: { tool: string; input: unknown }) => boolean | Promise<boolean>;

/**
 * Asked before each tool call runs, in call order; the run waits for the answer (the terminal's manual
 * mode). `approval` is set when the tool says this call must wait for a person
 * (ToolDefinition.needsApproval): then only a person's approval may run it, and `approvedBy` says whose.
 */
export type BeforeTool = (call: { step: number; tool: string; input: unknown; callId: string; approval?: ToolApproval }) => Promise<ToolDecision>;

/**
 * A budget shared with other runs and processes (a member's and a server's daily tokens), spent call by
 * call: asked before every model call, told after each. The engine knows nothing of where it is kept.
 */
export interface CallBudget {
  /** Before a model call: undefined to go ahead, or why not (the run ends, reason 'token-budget', keeping what it produced). */
  beforeCall(): Promise<string | undefined>;
  /** After a model call: what was sent (messages, tool schemas) and the reply (its usage as the server reported it). Never throws. */
  afterCall(call: { messages: readonly ChatMessage[]; tools?: readonly ToolSchema[]; reply: ModelReply }): Promise<void>;
}

/** Everything a run needs, fixed when it starts (the engine builds it from its defaults and the input). */
export interface RunPlan {
  model: ChatModel;
  protocol: ProtocolSetting;
  drivers: { native: ProtocolDriver; text: ProtocolDriver };
  memory: ProtocolMemory;
  tools: readonly ToolDefinition[];
  knownNames: ReadonlySet<string>;
  runner: ToolRunner;
  /** The run's sources and their numbers, shared with the tools (through `ToolContext.cite`). */
  citations: Citations;
  messages: readonly ChatMessage[];
  allowedTools: () => ReadonlySet<string> | Promise<ReadonlySet<string>>;
  maxSteps: number;
  /** Tokens the run may use; once spent, the current step finishes and the model answers from what it has. */
  tokenBudget?: number;
  maxTokens?: number;
  /** Checked before and charged after every model call. */
  callBudget?: CallBudget;
  /** Trims each request to the model's context window; none: requests go as they are. */
  fitContext?: FitContext;
  /** Whether the model is shown the images tools return, after their results. */
  toolImages?: (model: string) => boolean;
  runTimeoutMs: number;
  instructions?: string;
  signal?: AbortSignal;
  beforeTool?: BeforeTool;
  approval?: NeedsApproval;
  clock: () => number;
}
