/**
 * A run stopped at a call that needs a person (an interruption), as plain data: what it was given,
 * what it has done, and the step that waits. It is JSON through and through, so the caller can keep it
 * in shared storage for as long as the decision takes (hours, a restart) and resume the run from it in
 * any process: `engine.resume(state, decisions, input)` runs the waiting step with the decisions and
 * goes on as if the run had never stopped.
 */
import type { ToolAttachment } from './tool.js';
import type { RunState } from './types.js';

export type { CallDecision, Interruption, RunState, WaitingCall } from './types.js';

export function filesToState(files: readonly ToolAttachment[]): RunState['files'] {
  return files.map((f) => ({ ...f, data: Buffer.from(f.data).toString('base64') }));
}

export function filesFromState(files: RunState['files']): ToolAttachment[] {
  return files.map((f) => ({ ...f, data: new Uint8Array(Buffer.from(f.data, 'base64')) }));
}
