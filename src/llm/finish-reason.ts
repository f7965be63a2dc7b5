/**
 * Servers name the end of a reply in their own words (`eos`, `max_tokens`, `end_turn`, `safety`...).
 * The engine decides on OpenAI's four values, so these are mapped onto them; anything else is
 * passed through as the server wrote it, lower-cased.
 */
import type { FinishReason } from '../agent/types.js';

const SYNONYMS: Record<string, FinishReason> = {
  stop: 'stop',
  eos: 'stop',
  eos_token: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  max_tokens: 'length',
  max_output_tokens: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  safety: 'content_filter',
  recitation: 'content_filter',
};

/**
 * OpenAI's name for why the reply ended. A reply that carries tool calls but says `stop` (Ollama,
 * some llama.cpp templates) ended to call them: that is `tool_calls`.
 */
export function normalizeFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason | undefined {
  if (!raw) return hasToolCalls ? 'tool_calls' : undefined;
  const word = raw.trim().toLowerCase();
  const reason = SYNONYMS[word] ?? word;
  return reason === 'stop' && hasToolCalls ? 'tool_calls' : reason;
}
