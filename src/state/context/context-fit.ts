/**
 * Fitting a whole request into the model's context window: the system prompt, the tool schemas, the
 * history and the room the reply may take (MODEL_MAX_TOKENS) must add up to no more than the window
 * (MODEL_CONTEXT_TOKENS). The engine calls this before every request; it trims the history the same
 * way a thread's history is trimmed (oldest turns first, tool calls never parted from their results).
 */
import type { ChatMessage, FitContext, ToolSchema } from '../../agent/types.js';
import { ModelError } from '../../errors.js';
import type { TokenCounter } from './token-counter.js';
import { trimHistory } from './trim-history.js';

export interface ContextFitOptions {
  /** The model's context window in tokens. */
  windowTokens: number;
  counter: TokenCounter;
  /** Room for the reply when the request names none. */
  defaultReplyTokens?: number;
  /** What a hard fit (after the server said it did not fit) keeps of the budget, counting differently than it does. */
  hardFraction?: number;
}

export function contextFit(options: ContextFitOptions): FitContext {
  const hardFraction = options.hardFraction ?? 0.8;
  const schemaTokens = new WeakMap<ToolSchema[], number>();
  const toolsCost = (tools: ToolSchema[] | undefined) => {
    if (!tools?.length) return 0;
    let cost = schemaTokens.get(tools);
    if (cost === undefined) {
      cost = options.counter.text(JSON.stringify(tools));
      schemaTokens.set(tools, cost);
    }
    return cost;
  };
  return ({ messages, tools, maxTokens }, hard) => {
    const room = options.windowTokens - (maxTokens ?? options.defaultReplyTokens ?? 1024) - toolsCost(tools);
    const budget = Math.floor(hard ? room * hardFraction : room);
    const trimmed = trimHistory<ChatMessage>(messages, { budget, counter: options.counter });
    if (budget <= 0 || trimmed.overBudget) {
      throw new ModelError(
        'context-length',
        `The request does not fit the model's context window even with the history trimmed (MODEL_CONTEXT_TOKENS is ${options.windowTokens}, MODEL_MAX_TOKENS leaves room for the reply). Raise MODEL_CONTEXT_TOKENS if the model allows more, or lower MODEL_MAX_TOKENS.`,
      );
    }
    // The server refused the request and the harder trim left it as it was: sending it again would
    // get the same refusal. The question itself (a pasted log, a long file) is what overflows.
    if (hard && trimmed.droppedMessages === 0 && trimmed.shortened === 0) {
      throw new ModelError(
        'context-length',
        `The model server says the request does not fit its context window, and there is no older history left to trim: the message itself is too long for the model. Shorten it (or attach long text as a file), or give the model a larger context on the server; MODEL_CONTEXT_TOKENS (now ${options.windowTokens}) should be the size the server really runs with.`,
      );
    }
    return trimmed.messages;
  };
}
