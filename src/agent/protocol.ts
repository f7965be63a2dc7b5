/**
 * What the two protocols have in common. The run loop drives either through this interface, so native
 * tool calling and the text protocol share the tools, limits and events. Each model reply is read
 * into a `NextStep`: what the loop does next.
 */
import type { ToolDefinition, ToolImage } from './tool.js';
import type { StreamedText } from './text-stream.js';
import type { RawArguments } from './tool-arguments.js';
import type { ChatMessage, CutOff, ModelDelta, ModelReply, ModelRequest, Protocol } from './types.js';

export interface PlannedCall {
  callId: string;
  tool: string;
  raw: RawArguments;
}

/**
 * One model reply, read: run tools, take an answer, or send a reminder because the reply had neither.
 * `assistant` is the message to keep in the transcript; `thought` is what to show as the model's reasoning.
 */
export type NextStep =
  | { kind: 'tools'; thought?: string; calls: PlannedCall[]; assistant: ChatMessage }
  | { kind: 'answer'; thought?: string; answer: string; assistant: ChatMessage; cutOff?: CutOff }
  | {
      kind: 'remind';
      thought?: string;
      reminder: ChatMessage & { role: 'user'; content: string };
      assistant: ChatMessage;
      /** Text protocol: the reply was plain prose; if it happens twice in a row, the prose is the answer. */
      prose?: string;
      cutOff?: CutOff;
    };

/** Thought and answer text of one streaming reply, as it arrives; `end` gives what was held back. */
export interface TextStream {
  push(delta: ModelDelta): StreamedText[];
  end(): StreamedText[];
}

export interface ObservationOut {
  call: PlannedCall;
  output: string;
  /** Images the tool returned (shown to vision models after the results). */
  images?: ToolImage[];
}

export interface ProtocolDriver {
  readonly name: Protocol;
  /** The system prompt: stable for a given tool list, so servers can cache the prompt prefix. */
  systemPrompt(tools: readonly ToolDefinition[], maxSteps: number, instructions?: string): string;
  /** Request fields for this protocol; `final` asks for an answer without tools. */
  requestFields(tools: readonly ToolDefinition[], final: boolean): Pick<ModelRequest, 'tools' | 'toolChoice' | 'stop'>;
  /** The stored conversation in the form this protocol's model expects. */
  prepareHistory(messages: readonly ChatMessage[]): ChatMessage[];
  interpret(reply: ModelReply, step: number, knownTools: ReadonlySet<string>): NextStep;
  /** The observation messages for a step's calls, in call order; `stepNote` ends the last one. */
  observationMessages(results: ObservationOut[], stepNote: string): ChatMessage[];
  /** A note to the model in this protocol's shape (text: an Observation), e.g. that its reply was cut off. */
  reminder(note: string): ChatMessage & { role: 'user'; content: string };
  /** Reads one reply's text into thought and answer text as it streams (`final`: the forced last reply). */
  textStream(final: boolean): TextStream;
  /** The instruction for the last call when the run must end (sent, never stored); `why` says what ran out. */
  finalNudge(why: string): ChatMessage;
  /** Read the forced last reply as an answer, as leniently as possible. */
  finalAnswer(reply: ModelReply, knownTools: ReadonlySet<string>): string | undefined;
}

/** The note that tells the model where it is in its step budget. */
export function stepNote(nextStep: number, maxSteps: number): string {
  if (nextStep >= maxSteps) return `[step ${maxSteps} of ${maxSteps}: the last step; answer now unless one more tool call is essential]`;
  return `[step ${nextStep} of ${maxSteps}]`;
}
