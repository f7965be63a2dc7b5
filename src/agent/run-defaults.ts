/** The engine's settings for a run and their built-in values: the one home of these numbers. */
import type { ProtocolSetting } from './types.js';
import { TEXT_CAPS } from './text-caps.js';

/** The run settings every run gets unless its input says otherwise. */
export interface RunDefaults {
  protocol: ProtocolSetting;
  maxSteps: number;
  /** Per tool call (a tool's own `timeoutMs` wins). */
  toolTimeoutMs: number;
  /** Per run: a deadline for every model request and tool call in it. */
  runTimeoutMs: number;
  /** Tool output longer than this is cut, with a note telling the model so. */
  maxToolOutputChars: number;
  /** Most tokens per model reply (sent to the server); none when undefined. */
  maxTokens?: number;
  /** Also offer a `final_answer` tool in the native protocol (helps some small models stop cleanly). */
  offerFinalAnswerTool: boolean;
}

/** The built-in defaults (configuration starts from them). */
export const DEFAULT_RUN: Readonly<RunDefaults> = {
  protocol: 'auto',
  maxSteps: 8,
  toolTimeoutMs: 15_000,
  runTimeoutMs: 300_000,
  maxToolOutputChars: TEXT_CAPS.toolOutput,
  offerFinalAnswerTool: false,
};

/** The range a step limit may take, wherever it is set (environment, `/settings`, the terminal). */
export const STEP_LIMIT = { min: 1, max: 50 } as const;

