/**
 * The engine's vocabulary: chat messages (OpenAI's wire shape, so they go to any compatible server
 * unchanged), the model interface the engine calls, and the events and result of a run.
 */
import type { RawArguments } from './tool-arguments.js';
import type { Source, ToolApproval, ToolAttachment, ToolImage } from './tool.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Text in a user message made of parts. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** An image in a user message: OpenAI's `image_url` part (a `data:` URL or an https URL). */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** A piece of a user message: what vision models take (`[{type:'text'}, {type:'image_url'}]`). */
export type ContentPart = TextPart | ImagePart;

export type ChatMessage =
  | { role: 'system'; content: string }
  /** A person's message: plain text, or parts (text and images) when files came with it. */
  | { role: 'user'; content: string | ContentPart[]; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool as offered to the model in the native protocol. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelRequest {
  messages: ChatMessage[];
  /** Offered tools (native protocol). Absent or empty: the model must answer in text. */
  tools?: ToolSchema[];
  /** 'none' keeps tools visible (so earlier tool calls stay valid) but asks for a text answer. */
  toolChoice?: 'auto' | 'none';
  /** Stop sequences (text protocol). */
  stop?: string[];
  /** Cancels the request (and any retry wait). */
  signal?: AbortSignal;
  /** Epoch ms by which the whole run must end: no attempt or retry wait may run past it. */
  deadline?: number;
  /** Most tokens the reply may have (MODEL_MAX_TOKENS); sent as the parameter the server expects. */
  maxTokens?: number;
  /** Called with each piece of text as the server streams it, in order. */
  onDelta?: (delta: ModelDelta) => void;
}

/** A piece of a streamed reply: answer/thought text (`content`) or separate reasoning text. */
export interface ModelDelta {
  kind: 'content' | 'reasoning';
  text: string;
}

/** Why the server stopped writing: OpenAI's values, or a server's own word. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export interface ModelReply {
  content: string;
  /** Separate reasoning text some servers return (`reasoning_content`); shown as the thought. */
  reasoning?: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason?: FinishReason;
}

/**
 * Fits a request into the model's context window before it is sent: the messages to send (the system
 * prompt and the newest turn always kept). `hard`: the server said the last attempt did not fit, so
 * leave more room this time; when there is nothing left to trim (the newest message alone is what
 * overflows), it throws a `context-length` ModelError rather than return the same request again.
 * Supplied by whoever knows the window and the tokenizer.
 */
export type FitContext = (request: { model: string; messages: ChatMessage[]; tools?: ToolSchema[]; maxTokens?: number }, hard: boolean) => ChatMessage[];

/** Anything that completes a chat: the OpenAI-compatible client, or a scripted fake in tests. */
export interface ChatModel {
  readonly model: string;
  /**
   * The server and model together (e.g. `http://127.0.0.1:11434/v1#qwen2.5:7b`): what the engine
   * learns about a model server (that it needs the text protocol) is remembered per key. Default: `model`.
   */
  readonly key?: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}

export type Protocol = 'native' | 'text';
export type ProtocolSetting = Protocol | 'auto';

/**
 * Why a run ended. At 'step-limit' and 'token-budget' the model was asked for a last answer without
 * tools; `answer` is set when it gave one. A run whose shared call budget refused its next call also
 * ends 'token-budget', with no further call and the refusal as its `error`. A run that reached a call
 * needing a person's approval ends 'interrupted', with the state to resume from (`interruption`).
 */
export type EndReason = 'answer' | 'step-limit' | 'token-budget' | 'aborted' | 'error' | 'interrupted';

/** Why an answer is incomplete: the reply hit MODEL_MAX_TOKENS, or the provider's content filter cut it. */
export type CutOff = 'length' | 'content-filter';

export type AgentEvent =
  /** `resumed`: the run goes on from an interruption (its earlier steps were shown then). */
  | { type: 'run-start'; protocol: Protocol; maxSteps: number; tools: string[]; resumed?: boolean }
  /**
   * Text as the model writes it. `answer` text of a step is provisional until the step's reply ends:
   * in the native protocol a reply's text is only known to be the thought once tool calls follow it,
   * and then a `thought` event for the same step carries the whole text (consumers drop the draft).
   * `provisional` marks such text. The `answer` event is always the final word on the answer's text.
   */
  | { type: 'text-delta'; step: number; kind: 'thought' | 'answer'; text: string; provisional?: boolean }
  | { type: 'protocol-fallback'; from: Protocol; to: Protocol; reason: string }
  | { type: 'step-start'; step: number; maxSteps: number }
  | { type: 'thought'; step: number; text: string }
  | { type: 'action'; step: number; callId: string; tool: string; input: unknown }
  | {
      type: 'observation';
      step: number;
      callId: string;
      tool: string;
      output: string;
      isError: boolean;
      durationMs: number;
      truncated: boolean;
      /** Files the tool handed back (a chart), to show at this step; absent when none. */
      attachments?: ToolAttachment[];
      /** Images the tool returned, for people to see (the model gets `output`). */
      images?: ToolImage[];
    }
  /** A long tool call's progress as its tool reports it (e.g. `3/5`). */
  | { type: 'progress'; step: number; callId: string; tool: string; text: string }
  | { type: 'format-reminder'; step: number; text: string }
  /** `attachments`: every file the run's tools handed back, to show with the answer (absent when none). */
  | { type: 'answer'; text: string; sources: Source[]; forced: boolean; cutOff?: CutOff; attachments?: ToolAttachment[] }
  | { type: 'error'; code: string; message: string }
  /** `error`: why a run that ended without an answer ended so (a failure, a spent budget, a stop). */
  | { type: 'run-end'; reason: EndReason; steps: number; usage: Usage; durationMs: number; error?: { code: string; message: string } };

export interface AgentResult {
  reason: EndReason;
  /** The answer text; present when reason is 'answer', or a limit was reached and the model still answered. */
  answer?: string;
  /** Set when the answer is incomplete, and why. */
  cutOff?: CutOff;
  sources: Source[];
  /** Files the run's tools handed back (charts), in the order they were made; absent when none. */
  attachments?: ToolAttachment[];
  /** Model calls made for reasoning steps (the forced last call is not counted). */
  steps: number;
  usage: Usage;
  durationMs: number;
  protocol: Protocol;
  /** Messages this run added after the input history: what the conversation store appends. */
  messages: ChatMessage[];
  error?: { code: string; message: string };
  /** Reason 'interrupted': the state to resume from and the calls waiting for a person. */
  interruption?: Interruption;
}

/*
 * A run stopped at a call that needs a person (an interruption), as plain data: what it was given, what
 * it has done, and the step that waits. JSON through and through, so the caller can keep it in shared
 * storage for as long as the decision takes and resume the run from it in any process (run-state.ts).
 */

/** A call of the waiting step, as the model made it. */
export interface WaitingCall {
  callId: string;
  tool: string;
  raw: RawArguments;
  /** The decoded arguments (what a person is shown; not kept in the state); absent when they did not decode. */
  input?: unknown;
  /** Whether this call waits for a decision (the others of the step run without one when the run resumes). */
  needsApproval: boolean;
  /** Set when the tool itself says this call must wait (whatever the rules say): why, and who may decide. */
  approval?: ToolApproval;
  /** A call that needed nobody and ran before the run stopped: its result, given to the model on resume. */
  done?: { output: string; images?: ToolImage[] };
}

/** Everything a resumed run needs. Version 1. */
export interface RunState {
  v: 1;
  /** The protocol the run was using (a fallback to the text protocol stays in force). */
  protocol: Protocol;
  steps: number;
  usage: Usage;
  /** The conversation the run was given (history and the new messages). */
  messages: ChatMessage[];
  /** What the run added before the waiting step (complete steps only). */
  added: ChatMessage[];
  /** The waiting step: the model's message and its calls, in call order. */
  pending: { assistant: ChatMessage; calls: WaitingCall[] };
  /** Sources cited so far, in citation order (numbers go on from them). */
  sources: Source[];
  /** Files the run's tools handed back so far, their bytes in base64. */
  files: Array<Omit<ToolAttachment, 'data'> & { data: string }>;
  /** Whether the step before the waiting one was a format reminder. */
  remindedLastStep: boolean;
  /** Time the run had taken when it stopped. */
  durationMs: number;
}

/** A person's decision on one waiting call: run it, or not (the model is told `note`). */
export type CallDecision = { approved: true; by?: string } | { approved: false; note: string };

/** How a run was interrupted: the state to resume from, and the calls that wait for a person. */
export interface Interruption {
  state: RunState;
  /** The calls that need a decision, in call order. */
  waiting: WaitingCall[];
}

