/** Small helpers for the loop: usage sums and the protocol a model server was found to need. */
import type { ChatModel, Protocol, Usage } from './types.js';

export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

export function addUsage(total: Usage, more: Usage): void {
  total.promptTokens += more.promptTokens;
  total.completionTokens += more.completionTokens;
  total.totalTokens += more.totalTokens;
}

// Once a server has rejected `tools`, later runs on the same model client start in text mode
// instead of paying for the failed request again.
const learned = new WeakMap<ChatModel, Protocol>();

export function learnedProtocol(model: ChatModel): Protocol | undefined {
  return learned.get(model);
}

export function rememberProtocol(model: ChatModel, protocol: Protocol): void {
  learned.set(model, protocol);
}
