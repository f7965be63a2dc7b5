/**
 * How real servers say "this model cannot do tool calling", "the conversation is too long" and
 * "the account is out of credit", and the messages we give instead. Each pattern is one a server
 * really sends; test/llm/model-errors.test.ts quotes every one with its source. Patterns are narrow
 * on purpose: an ordinary 400 that merely mentions a tool (a bad `tool_call_id`, a schema error in
 * `tools[0]`) is our own mistake and must not switch the bot to the text protocol.
 */

const TOOLS_UNSUPPORTED: RegExp[] = [
  /\bdoes not support tools\b/i, // Ollama: "llama3 does not support tools"
  /--enable-auto-tool-choice/i, // vLLM: "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
  /\btools param requires --jinja\b/i, // llama.cpp without --jinja
  /\bunsupported param: tools\b/i, // llama.cpp before --jinja existed
  /\btool (?:use|calling|calls) (?:is |are )?not supported\b/i, // generic gateways
  /\bdoes not support (?:tool|function)[ _-]?call(?:s|ing)?\b/i,
  /\bunrecognized request argument supplied: tools\b/i, // old Azure OpenAI API versions
  /\bunsupported parameter: 'tools' is not supported\b/i, // OpenAI: "Unsupported parameter: 'tools' is not supported with this model."
];

// OpenAI names the refused field: `code: unsupported_parameter` with `param: tools` (or tool_choice)
// is "no tool calling here" whatever the wording. Other codes on a tools param (a schema error in
// `tools[0]`) stay ordinary 400s, hence the exact param names.
const TOOL_PARAMS = new Set(['tools', 'tool_choice', 'parallel_tool_calls']);

// LM Studio accepts tools for every model, but a chat template that cannot render them fails with
// this; the same request without tools works, so for a request with tools it means "use text".
const TEMPLATE_CANNOT_RENDER = /\berror rendering prompt with jinja template\b/i;

const CONTEXT_LENGTH: RegExp[] = [
  /\bmaximum context length is \d+/i, // OpenAI and vLLM: "This model's maximum context length is 4096 tokens."
  /\bexceeds the available context size\b/i, // llama.cpp: "the request exceeds the available context size"
  /\bcontext size has been exceeded\b/i, // llama.cpp (older)
  /\blonger than the context length\b/i, // Ollama: "the prompt is longer than the context length currently available to the model"
  /\binput length exceeds the context length\b/i, // Ollama
  /\bloaded with context length of only \d+/i, // LM Studio: "the model is loaded with context length of only 4096 tokens"
  /\bexceeds the context window\b/i, // OpenAI Responses API
];

/** True when the server says the model or server cannot take tools, by its code and param or its words. */
export function isToolsUnsupported(said: { message: string; code?: string; param?: string }, hadTools: boolean): boolean {
  if (said.code === 'unsupported_parameter' && said.param !== undefined && TOOL_PARAMS.has(said.param)) return true;
  return TOOLS_UNSUPPORTED.some((re) => re.test(said.message)) || (hadTools && TEMPLATE_CANNOT_RENDER.test(said.message));
}

/** True when the server says the request does not fit the model's context window. */
export function isContextLength(said: { message: string; code?: string; type?: string }): boolean {
  if (said.code === 'context_length_exceeded' || said.type === 'exceed_context_size_error') return true;
  return CONTEXT_LENGTH.some((re) => re.test(said.message));
}

/** What to tell the user when the request did not fit: the setting that fixes it. */
export function contextLengthMessage(detail: string): string {
  return (
    `The conversation no longer fits in the model's context window (the server said: ${detail}). ` +
    'Set MODEL_CONTEXT_TOKENS to the context size the server really runs with (llama.cpp -c, Ollama num_ctx, ' +
    "vLLM --max-model-len, LM Studio's context length) so older history is trimmed before sending, or start a new thread."
  );
}

/** What to tell the user when the account is out of credit: who must act, and how. */
export function quotaMessage(detail: string): string {
  return (
    `The bot's model account is out of credit: the model provider refused the request with insufficient_quota (${detail}). ` +
    'Retrying will not help. A moderator should tell the bot operator, who must add credit or raise the spending limit ' +
    "on the provider's billing page (OpenAI: platform.openai.com, Settings, Billing), or set OPENAI_API_KEY to a key " +
    'of an account that has credit.'
  );
}
