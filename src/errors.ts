/**
 * The project's error hierarchy. Every error carries a stable `code` for logs and tests and a
 * `message` written for the person who will read it: what went wrong and what to do.
 */
export class ThreadwiseError extends Error {
  override name = 'ThreadwiseError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Configuration is missing or invalid; `problems` lists every one of them. */
export class ConfigError extends ThreadwiseError {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super('config', `Configuration problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Something went wrong inside a ReAct run. */
export class AgentError extends ThreadwiseError {
  override name = 'AgentError';
}

export type ModelErrorKind =
  | 'rate-limit'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'auth'
  | 'bad-request'
  | 'tools-unsupported'
  | 'context-length'
  | 'quota'
  | 'aborted';

/** The model server failed or refused; `kind` says how, `status` is the HTTP status if any. */
export class ModelError extends AgentError {
  override name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`model-${kind}`, message, options);
  }
}

/** A tool failed; the engine turns this into an observation, never a crashed run. */
export class ToolError extends ThreadwiseError {
  override name = 'ToolError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('tool', message, options);
  }
}

/** The storage backend failed: nothing was written, the caller must not carry on as if it were. */
export class StorageError extends ThreadwiseError {
  override name = 'StorageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('storage', message, options);
  }
}

/** Describe any thrown value in one line, for observations and logs. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
