/**
 * Replies the server stopped early (the length limit, the content filter) are never taken at face
 * value: what the loop does with them, and the notes it sends the model.
 */
import type { NextStep, ProtocolDriver } from './protocol.js';
import type { CutOff, EndReason, FinishReason } from './types.js';

/** How a reply that the server stopped early counts: length and the content filter, in our words. */
export function cutOffOf(finish: FinishReason | undefined): CutOff | undefined {
  if (finish === 'length') return 'length';
  if (finish === 'content_filter') return 'content-filter';
  return undefined;
}

const CUT_NOTE: Record<CutOff, string> = {
  length: 'Your reply was cut off at the length limit before it was complete, so nothing in it was run. Reply again, shorter: one tool call with a short input, or a brief answer.',
  'content-filter': "Your reply was stopped by the provider's content filter, so nothing in it was run. Reply again differently.",
};

/**
 * A reply the server stopped early is never taken at face value: tool calls cut off may be missing
 * arguments, so the model is asked again (the note says why); an answer keeps a mark saying it is
 * incomplete; a filtered reply with nothing in it ends the run.
 */
export function honest(next: NextStep, cutOff: CutOff | undefined, driver: ProtocolDriver): NextStep | 'filtered' {
  if (!cutOff) return next;
  switch (next.kind) {
    case 'answer':
      return { ...next, cutOff };
    case 'tools':
      return { kind: 'remind', thought: next.thought, reminder: driver.reminder(CUT_NOTE[cutOff]), assistant: next.assistant };
    case 'remind':
      if (cutOff === 'content-filter' && !next.prose) return 'filtered';
      return { ...next, reminder: driver.reminder(CUT_NOTE[cutOff]), cutOff };
  }
}

export function filtered(): { reason: EndReason; error: { code: string; message: string } } {
  return { reason: 'error', error: { code: 'content-filter', message: "The model provider's content filter stopped the reply, so there is no answer. Try asking differently." } };
}

