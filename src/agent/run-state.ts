/**
 * A run stopped at a call that needs a person (an interruption), as plain data: what it was given,
 * what it has done, and the step that waits. It is JSON through and through, so the caller can keep it
 * in shared storage for as long as the decision takes (hours, a restart) and resume the run from it in
 * any process: `engine.resume(state, decisions, input)` runs the waiting step with the decisions and
 * goes on as if the run had never stopped.
 */
import type { RawArguments } from './tool-arguments.js';
import type { Source, ToolAttachment } from './tool.js';
import type { ChatMessage, Protocol, Usage } from './types.js';

/** A call of the waiting step, as the model made it. */
export interface WaitingCall {
  callId: string;
  tool: string;
  raw: RawArguments;
  /** The decoded arguments (what a person is shown); absent when they did not decode. */
  input?: unknown;
  /** Whether this call waits for a decision (the others of the step run without one when the run resumes). */
  needsApproval: boolean;
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
export type CallDecision = { approved: true } | { approved: false; note: string };

/** How a run was interrupted: the state to resume from, and the calls that wait for a person. */
export interface Interruption {
  state: RunState;
  /** The calls that need a decision, in call order. */
  waiting: WaitingCall[];
}

export function filesToState(files: readonly ToolAttachment[]): RunState['files'] {
  return files.map((f) => ({ ...f, data: Buffer.from(f.data).toString('base64') }));
}

export function filesFromState(files: RunState['files']): ToolAttachment[] {
  return files.map((f) => ({ ...f, data: new Uint8Array(Buffer.from(f.data, 'base64')) }));
}
