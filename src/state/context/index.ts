/**
 * Fitting a conversation into the model's context: the token counter, the trimming of old turns (which
 * keeps the message sequence valid) and the context fit the engine calls before each request. One home,
 * re-exported by src/state/index.ts.
 */
export { trimHistory, type TrimOptions, type TrimResult } from './trim-history.js';
export { REPLY_PRIMING, TokenCounter, encodingForModel, tokenCounters, type EncodingName } from './token-counter.js';
export { sequenceProblem } from './message-sequence.js';
export { contextFit, type ContextFitOptions } from './context-fit.js';
