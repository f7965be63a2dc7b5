/** Token usage arithmetic: the one place runs, conversations and limits add usage up. */
import type { Usage } from './types.js';

/** Zero usage, a fresh object each time (callers add into it). */
export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Add `more` into `total`, in place. */
export function addUsage(total: Usage, more: Usage): void {
  total.promptTokens += more.promptTokens;
  total.completionTokens += more.completionTokens;
  total.totalTokens += more.totalTokens;
}
