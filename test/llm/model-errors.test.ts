import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/agent/types.js';
import { FakeOpenAIServer, type ScriptedError } from '../fakes/openai-server.js';
import { clientFor, recording, failure } from './helpers.js';

const TOOLS: ToolSchema[] = [{ type: 'function', function: { name: 'wikipedia', description: 'Search Wikipedia', parameters: { type: 'object', properties: {} } } }];

type Wording = [server: string, source: string, reply: ScriptedError];

// Each reply is what the server really sends, status and body shape included.
const TOOLS_UNSUPPORTED: Wording[] = [
  ['Ollama (/v1)', 'https://github.com/ollama/ollama/issues/6027',
    { status: 400, error: 'stablelm2:latest does not support tools', type: 'api_error' }],
  ['Ollama (error as a plain string)', 'https://github.com/ollama/ollama/issues/14795',
    { status: 400, error: '', body: { error: 'registry.ollama.ai/library/Qwen3.5:0.8b does not support tools' } }],
  ['vLLM without --enable-auto-tool-choice (top-level error body)', 'https://github.com/langchain4j/langchain4j/issues/3475',
    { status: 400, error: '', body: { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 } }],
  ['llama.cpp without --jinja', 'https://github.com/containers/ramalama/issues/988 and https://github.com/defilantech/LLMKube/issues/126',
    { status: 500, error: '', body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } } }],
  ['llama.cpp before --jinja existed', 'https://github.com/ggml-org/llama.cpp/issues/10920',
    { status: 500, error: '', body: { error: { code: 500, message: 'Unsupported param: tools', type: 'server_error' } } }],
  ['LM Studio, a chat template that cannot render the tools', 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/842',
    { status: 400, error: '', body: { error: 'Error rendering prompt with jinja template: "Cannot pass both content and thinking in an assistant message with tool calls! Put the analysis message in one or the other, but not both.".' } }],
  ['OpenAI, a model without tool calling', 'OpenAI (o1-mini and other models without tool calling), the body as recorded by client test fixtures',
    { status: 400, error: "Unsupported parameter: 'tools' is not supported with this model.", type: 'invalid_request_error', code: 'unsupported_parameter', param: 'tools' }],
  ['OpenAI, the same words with code null (older bodies)', 'body as recorded by client test fixtures',
    { status: 400, error: "Unsupported parameter: 'tools' is not supported with this model.", type: 'invalid_request_error', code: null, param: 'tools' }],
  ['a gateway that keeps OpenAI\'s code and param but words it its own way', 'code and param as OpenAI sends them',
    { status: 400, error: 'This deployment cannot take that field.', type: 'invalid_request_error', code: 'unsupported_parameter', param: 'tools' }],
];

const CONTEXT_LENGTH: Wording[] = [
  ['OpenAI', 'https://github.com/mckaywrigley/chatbot-ui/issues/1396 (code from OpenAI error codes)',
    { status: 400, error: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8264 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' }],
  ['llama.cpp', 'https://github.com/ggml-org/llama.cpp/issues/19774 (type added in https://github.com/ggml-org/llama.cpp/pull/15780)',
    { status: 400, error: '', body: { error: { code: 400, message: 'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 4390, n_ctx: 4096 } } }],
  ['vLLM (top-level error body)', 'https://github.com/vllm-project/vllm/issues/20409 and https://github.com/ogx-ai/ogx/issues/4534',
    { status: 400, error: '', body: { object: 'error', message: "This model's maximum context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 } }],
  ['Ollama with context shift off', 'ollama/ollama llm/server.go (context shift off), quoted verbatim in OneUptime\'s Ollama guide',
    { status: 400, error: '', body: { error: 'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length' } }],
  ['Ollama with truncate off, passing on llama.cpp\'s JSON as a string', 'measured against Ollama (truncate:false), body as recorded',
    { status: 400, error: '', body: { error: '{"error":{"code":400,"message":"request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8889,"n_ctx":4096}}' } }],
  ['Ollama', 'ollama/ollama server/routes.go and llm/server.go (truncation off), quoted in clients that handle it',
    { status: 400, error: '', body: { error: 'the input length exceeds the context length' } }],
];

describe('model server errors through the real SDK', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it.each(TOOLS_UNSUPPORTED)('recognises "tools not supported" from %s (%s)', async (_server, _source, reply) => {
    server.script(reply);
    const error = await failure(clientFor(server).complete(recording({ tools: TOOLS }).request));
    expect(error.kind).toBe('tools-unsupported');
    expect(error.message).toMatch(/does not accept tool calling: \S/);
    expect(error.message).not.toMatch(/no body|^\S*"/);
    expect(server.requests).toHaveLength(1); // a 500 that says "no tools" is not retried
  });

  it.each(CONTEXT_LENGTH)('recognises a context-length error from %s (%s) and names MODEL_CONTEXT_TOKENS', async (_server, _source, reply) => {
    server.script(reply);
    const error = await failure(clientFor(server).complete(recording().request));
    expect(error.kind).toBe('context-length');
    expect(error.message).toMatch(/MODEL_CONTEXT_TOKENS/);
    expect(error.message).toMatch(/context|tokens/);
    expect(server.requests).toHaveLength(1);
  });

  it('reads a template error as "no tools" only when the request offered tools', async () => {
    const templateError = { status: 400, error: '', body: { error: 'Error rendering prompt with jinja template: "Unknown test: sequence".' } };
    server.script(templateError, templateError);
    expect((await failure(clientFor(server).complete(recording({ tools: TOOLS }).request))).kind).toBe('tools-unsupported');
    expect((await failure(clientFor(server).complete(recording().request))).kind).toBe('bad-request');
  });

  it('recognises an error event inside a 200 stream (LM Studio) and does not resend', async () => {
    // https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/2180: HTTP 200, one SSE error event, no deltas.
    const message = 'Error rendering prompt with jinja template: "Cannot call something that is not a function: got ObjectValue"';
    server.script({ content: '', stream: { errorEvent: { error: { message } } } }, { content: 'never asked' });
    const error = await failure(clientFor(server).complete(recording({ tools: TOOLS }).request));
    expect(error.kind).toBe('tools-unsupported');
    expect(error.message).toContain('Cannot call something that is not a function');
    expect(server.requests).toHaveLength(1);
  });

  it('reads an error sent with status 200 in place of a completion, and does not resend it', async () => {
    server.script({ stream: { rawJson: { error: { message: 'the input length exceeds the context length' } } } }, { content: 'never asked' });
    const error = await failure(clientFor(server).complete(recording().request));
    expect(error.kind).toBe('context-length');
    expect(server.requests).toHaveLength(1);
  });

  it('reports any other error event in a stream as a server error with its words', async () => {
    server.script({ content: 'partial', stream: { errorEvent: { error: { message: 'CUDA out of memory' }, beforeEvent: 2 } } });
    const error = await failure(clientFor(server).complete(recording().request));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('CUDA out of memory');
  });

  it('does not read an ordinary 400 that mentions a tool as "tools not supported"', async () => {
    const ordinary: ScriptedError[] = [
      { status: 400, error: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", type: 'invalid_request_error', param: 'messages.[3].role' },
      { status: 400, error: "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40.", type: 'invalid_request_error' },
      { status: 400, error: "Invalid schema for function 'wikipedia': In context=(), 'required' is required to be supplied.", type: 'invalid_request_error', param: 'tools[0].function.parameters' },
      { status: 422, error: 'tool_choice must be one of none, auto, required', type: 'invalid_request_error' },
      { status: 400, error: "Invalid 'tools[0].function.name': string does not match pattern.", type: 'invalid_request_error', code: 'invalid_value', param: 'tools[0].function.name' },
      { status: 400, error: "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.", type: 'invalid_request_error', code: 'invalid_parameter', param: 'messages.[2].tool_call_id' },
      { status: 400, error: "Unsupported parameter: 'temperature' is not supported with this model.", type: 'invalid_request_error', code: 'unsupported_parameter', param: 'temperature' },
    ];
    server.script(...ordinary);
    for (const _ of ordinary) {
      const error = await failure(clientFor(server).complete(recording({ tools: TOOLS }).request));
      expect(error.kind).toBe('bad-request');
    }
  });

  it('never retries an account that is out of credit, and says who must act', async () => {
    // Body from https://github.com/openai/openai-cookbook/issues/844 (type and code both insufficient_quota).
    server.script(
      { status: 429, error: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' },
      { content: 'never asked' },
    );
    const error = await failure(clientFor(server, { maxRetries: 3 }).complete(recording().request));
    expect(error.kind).toBe('quota');
    expect(error.message).toMatch(/out of credit/);
    expect(error.message).toMatch(/moderator/);
    expect(error.message).toMatch(/operator/);
    expect(server.requests).toHaveLength(1);
  });

  it('recognises quota from the type alone (older OpenAI bodies had code null)', async () => {
    // https://github.com/ayaka14732/ChatGPTAPIFree/issues/16
    server.script({ status: 429, error: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: null });
    expect((await failure(clientFor(server, { maxRetries: 3 }).complete(recording().request))).kind).toBe('quota');
  });

  it('still retries an ordinary rate limit', async () => {
    server.script({ status: 429, error: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded', headers: { 'retry-after-ms': '10' } }, { content: 'ok' });
    const reply = await clientFor(server).complete(recording().request);
    expect(reply.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });
});
