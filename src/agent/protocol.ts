/**
 * What the two protocols have in common. The loop in run-agent.ts drives either through this
 * interface, so native tool calling and the text protocol share the tools, limits and events.
 */
import type { ToolDefinition } from './tool.js';
import type { RawArguments } from './tool-arguments.js';
import type { ChatMessage, ModelReply, ModelRequest, Protocol } from './types.js';

export interface PlannedCall {
  callId: string;
  tool: string;
  raw: RawArguments;
}

/** One model reply, read. Exactly one of: calls to run, an answer, or a format reminder to send. */
export interface Interpreted {
  thought?: string;
  calls: PlannedCall[];
  answer?: string;
  /** Text protocol: the reply had neither an action nor an answer; send this as the observation. */
  reminder?: ChatMessage;
  /** The assistant message to keep in the transcript. */
  assistant: ChatMessage;
}

export interface ObservationOut {
  call: PlannedCall;
  output: string;
}

export interface ProtocolDriver {
  readonly name: Protocol;
  /** The system prompt: stable for a given tool list, so servers can cache the prompt prefix. */
  systemPrompt(tools: readonly ToolDefinition[], maxSteps: number, instructions?: string): string;
  /** Request fields for this protocol; `final` asks for an answer without tools. */
  requestFields(tools: readonly ToolDefinition[], final: boolean): Pick<ModelRequest, 'tools' | 'toolChoice' | 'stop'>;
  /** The stored conversation in the form this protocol's model expects. */
  prepareHistory(messages: readonly ChatMessage[]): ChatMessage[];
  interpret(reply: ModelReply, step: number, knownTools: ReadonlySet<string>): Interpreted;
  /** The observation messages for a step's calls, in call order; `stepNote` ends the last one. */
  observationMessages(results: ObservationOut[], stepNote: string): ChatMessage[];
  /** The instruction for the last call at the step limit (sent, never stored). */
  finalNudge(maxSteps: number): ChatMessage;
  /** Read the forced last reply as an answer, as leniently as possible. */
  finalAnswer(reply: ModelReply, knownTools: ReadonlySet<string>): string | undefined;
}

/** The note that tells the model where it is in its step budget. */
export function stepNote(nextStep: number, maxSteps: number): string {
  if (nextStep >= maxSteps) return `[step ${maxSteps} of ${maxSteps}: the last step; answer now unless one more tool call is essential]`;
  return `[step ${nextStep} of ${maxSteps}]`;
}
