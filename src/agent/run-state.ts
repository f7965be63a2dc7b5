/**
 * A run stopped at a call that needs a person (an interruption), as plain data: what it was given,
 * what it has done, and the step that waits. It is JSON through and through, so the caller can keep it
 * in shared storage for as long as the decision takes (hours, a restart) and resume the run from it in
 * any process: `engine.resume(state, decisions, input)` runs the waiting step with the decisions and
 * goes on as if the run had never stopped. Read back, it is checked whole (`readRunState`): a state of
 * another version, or damaged, is refused with the reason rather than resumed.
 */
import { z } from 'zod';
import { ChatMessageSchema, UsageSchema } from './message-schema.js';
import { readSaved, type Read } from './saved.js';
import type { ToolAttachment } from './tool.js';
import type { RunState } from './types.js';

export type { CallDecision, Interruption, RunState, WaitingCall } from './types.js';

/** The version of RunState this engine writes and reads. Bump it when the shape changes. */
export const RUN_STATE_VERSION = 1;

const WaitingCallSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  raw: z.object({ kind: z.enum(['json', 'text']), text: z.string() }),
  input: z.unknown().optional(),
  needsApproval: z.boolean(),
  approval: z.object({ reason: z.string(), approvers: z.array(z.object({ id: z.string(), name: z.string() })).readonly().optional() }).optional(),
  done: z.object({ output: z.string(), images: z.array(z.object({ mimeType: z.string(), data: z.string() })).optional() }).optional(),
});

/** RunState as saved (types.ts), field for field. */
export const RunStateSchema = z.object({
  v: z.literal(RUN_STATE_VERSION),
  protocol: z.enum(['native', 'text']),
  steps: z.number().int().nonnegative(),
  usage: UsageSchema,
  messages: z.array(ChatMessageSchema),
  added: z.array(ChatMessageSchema),
  pending: z.object({ assistant: ChatMessageSchema, calls: z.array(WaitingCallSchema).min(1) }),
  sources: z.array(z.object({ title: z.string(), url: z.string().optional() })),
  files: z.array(z.object({ name: z.string(), contentType: z.string(), data: z.string(), description: z.string().optional() })),
  remindedLastStep: z.boolean(),
  durationMs: z.number(),
});

// The schema and the type must not drift apart: each must be assignable to the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameShape: Same<z.infer<typeof RunStateSchema>, RunState> = true;
void _sameShape;

/** A saved run state read back: the state to resume from, or why it cannot be (another version, damaged). */
export function readRunState(value: unknown): Read<RunState> {
  return readSaved(RunStateSchema, RUN_STATE_VERSION, value) as Read<RunState>;
}

export function filesToState(files: readonly ToolAttachment[]): RunState['files'] {
  return files.map((f) => ({ ...f, data: Buffer.from(f.data).toString('base64') }));
}

export function filesFromState(files: RunState['files']): ToolAttachment[] {
  return files.map((f) => ({ ...f, data: new Uint8Array(Buffer.from(f.data, 'base64')) }));
}
